/**
 * Checking a steward's transparency log, an RFC 9162 Merkle tree over its sealed receipt envelopes:
 * inclusion and consistency proofs ({@link org.meshjava.receipt.tlog.InclusionProof}, {@link
 * org.meshjava.receipt.tlog.ConsistencyProof}) against tree hashes, and C2SP checkpoints signed as
 * C2SP signed notes (the Ed25519 note signatures Go's {@code sumdb/note} and the public witnesses
 * verify). SPEC.md's "Transparency log" section gives the byte-level rules. Keeping a log (the
 * tree's storage, signing checkpoints) is the steward's business and lives in {@code
 * org.meshjava.receipt.tlog.internal}.
 */
package org.meshjava.receipt.tlog;
