/**
 * JCP grants as mesh/1 needs them (§2, §2.1, §7 item 1). The JCP text itself is not available to
 * this project, so the byte-level definitions here are the project's own and are written down in
 * SPEC.md .
 *
 * <p>Start at {@link org.meshjava.jcp.Jcp} to issue, delegate, shard and present grants, and at
 * {@link org.meshjava.jcp.Gate} to decide and debit them. Spend lives behind {@link
 * org.meshjava.jcp.SpendLedger}; the in-memory ledger gives budgets back on restart, which is why a
 * restartable steward needs a durable journal (§2.2).
 *
 * <p>Choices where the profile is silent: times are whole epoch seconds and the window is
 * half-open; a grant id hashes the signed envelope; a released authorisation keeps its presentation
 * spent; several caveats of one kind all apply (their intersection); a caveat of an unknown kind
 * survives decoding so the refusal can name it.
 */
package org.meshjava.jcp;
