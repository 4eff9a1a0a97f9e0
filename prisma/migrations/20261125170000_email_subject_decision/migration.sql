-- An e-mail carries exactly one thing: an issued document, the answer to a received envelope,
-- or a decision's answers to a supplier (received_decisions, added alongside the mailbox).
ALTER TABLE "email_messages" DROP CONSTRAINT "email_messages_one_subject";
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_one_subject"
  CHECK (num_nonnulls("document_id", "received_envelope_id", "decision_id") = 1);
