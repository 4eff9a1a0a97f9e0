// Timbre dashboard: progressive enhancement only. Every flow works without this file.
(() => {
  document.documentElement.classList.add('js');

  // Issuer switcher: change → go (the button stays for keyboards and no-JS).
  for (const select of document.querySelectorAll('select[data-autosubmit]')) {
    select.addEventListener('change', () => select.form.submit());
  }
  for (const el of document.querySelectorAll('.js-hide')) el.hidden = true;

  // Copy buttons.
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = 'Copiado';
      } catch {
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = 'Selecciona y copia';
      }
    });
  }

  // Recibidos: drop an EnvioDTE on the upload form; it goes in the file input and is sent.
  for (const zone of document.querySelectorAll('form[data-dropzone]')) {
    const input = zone.querySelector('input[type="file"]');
    const hint = zone.querySelector('[data-dropzone-hint]');
    if (!input || typeof DataTransfer === 'undefined') continue;
    if (hint) hint.hidden = false;
    const over = (event) => {
      event.preventDefault();
      zone.classList.add('dragging');
    };
    zone.addEventListener('dragenter', over);
    zone.addEventListener('dragover', over);
    zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
    zone.addEventListener('drop', (event) => {
      event.preventDefault();
      zone.classList.remove('dragging');
      const file = event.dataTransfer?.files?.[0];
      if (!file) return;
      const list = new DataTransfer();
      list.items.add(file);
      input.files = list.files;
      if (hint) hint.textContent = `Subiendo ${file.name}…`;
      zone.requestSubmit();
    });
  }

  const form = document.querySelector('form[data-issue-form]');
  if (!form) return;

  // Sections that apply only to some types.
  const typeSelect = form.querySelector('[data-doc-type]');
  const showFor = () => {
    const type = typeSelect.value;
    for (const el of form.querySelectorAll('[data-only]')) el.hidden = !el.dataset.only.split(' ').includes(type);
  };
  typeSelect.addEventListener('change', showFor);
  showFor();

  // Add a line without a round trip.
  const lines = form.querySelector('[data-lines]');
  const addButton = form.querySelector('[data-add-line]');
  addButton.addEventListener('click', (event) => {
    event.preventDefault();
    const rows = lines.querySelectorAll('[data-line]');
    const index = rows.length;
    if (index >= 60) return;
    const copy = rows[rows.length - 1].cloneNode(true);
    for (const el of copy.querySelectorAll('[id]')) el.id = el.id.replace(/^item-\d+-/, `item-${index}-`);
    for (const el of copy.querySelectorAll('label[for]'))
      el.htmlFor = el.htmlFor.replace(/^item-\d+-/, `item-${index}-`);
    for (const el of copy.querySelectorAll('.field-error')) el.remove();
    for (const input of copy.querySelectorAll('input')) {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
      if (input.type === 'checkbox') {
        input.checked = false;
        input.value = String(index);
      } else input.value = '';
    }
    copy.querySelector('.line-no').textContent = String(index + 1);
    lines.appendChild(copy);
    form.querySelector('input[name="rows"]').value = String(index + 1);
    copy.querySelector('input').focus();
  });

  // Live totals from the preview use case.
  const status = form.querySelector('[data-total-status]');
  let timer = 0;
  let sequence = 0;
  const refresh = async () => {
    const mine = ++sequence;
    const body = new URLSearchParams(new FormData(form));
    try {
      const res = await fetch(form.dataset.totalsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      });
      const data = await res.json();
      if (mine !== sequence) return;
      if (data.ok) {
        for (const [key, value] of Object.entries(data.totals)) {
          const cell = form.querySelector(`[data-total="${key}"]`);
          if (cell) cell.textContent = value;
        }
        status.textContent = data.warnings.length ? data.warnings.join(' ') : 'Totales al día.';
      } else {
        const first = Object.values(data.errors || {})[0];
        status.textContent = first ? `Revisa: ${first}` : 'Revisa el formulario.';
      }
    } catch {
      if (mine === sequence) status.textContent = 'No se pudieron calcular los totales.';
    }
  };
  // A page re-rendered with values (after an error, or "Más líneas") shows their totals at once.
  if ([...form.querySelectorAll('input[name="item_name"]')].some((i) => i.value)) refresh();
  form.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 350);
  });
  form.addEventListener('change', () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  });

  // A second click while the first is on its way does nothing (the server also guards it).
  let sent = false;
  form.addEventListener('submit', (event) => {
    const submitter = event.submitter;
    if (submitter?.value !== 'issue') return;
    if (sent) {
      event.preventDefault();
      return;
    }
    sent = true;
    submitter.setAttribute('aria-disabled', 'true');
    submitter.textContent = 'Emitiendo…';
  });
})();
