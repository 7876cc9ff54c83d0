/**
 * Keeping a transparency log, not part of the API: the Merkle tree's storage (appends, proofs,
 * packed levels a snapshot saves and a restart rebuilds from) and the steward's log over it, which
 * signs checkpoints and takes witnesses' cosignatures. Exported only to the modules that keep or
 * rebuild a log (the journal, the steward, the conformance pack); a user checks a log with the
 * proofs and checkpoints of {@code org.meshjava.receipt.tlog}.
 */
package org.meshjava.receipt.tlog.internal;
