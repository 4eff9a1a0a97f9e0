-- Written by hand (a trigger function; Prisma has nothing to diff). The list's `q` pages find
-- their receivers in receiver_search_texts (src/issuing/list-documents.ts). Matching the
-- deltas there too (for receivers not folded yet) made the planner join the documents of the
-- ordered list scan against every matching receiver one by one: a page of `q=villagrán` took
-- ~400 ms instead of ~8 ms with a million documents. So the row trigger writes a receiver's
-- search row itself again, but only a probe of the primary key when the receiver is known, and
-- one small insert the first time (ON CONFLICT DO NOTHING: no heap row when it exists). Counts
-- still come from the counters plus the pending deltas.
CREATE OR REPLACE FUNCTION "documents_count_delta"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO "document_count_deltas" ("issuer_id", "date", "type", "estado_sii", "search_text", "delta")
    VALUES (OLD."issuer_id", OLD."date", OLD."type", OLD."estado_sii", OLD."search_text", -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "document_count_deltas" ("issuer_id", "date", "type", "estado_sii", "search_text", "delta")
    VALUES (NEW."issuer_id", NEW."date", NEW."type", NEW."estado_sii", NEW."search_text", 1);
    IF TG_OP = 'INSERT' OR (NEW."issuer_id", NEW."search_text") IS DISTINCT FROM (OLD."issuer_id", OLD."search_text") THEN
      INSERT INTO "receiver_search_texts" ("issuer_id", "search_text")
      VALUES (NEW."issuer_id", NEW."search_text")
      ON CONFLICT DO NOTHING;
    END IF;
  END IF;
  RETURN NULL;
END
$$;
