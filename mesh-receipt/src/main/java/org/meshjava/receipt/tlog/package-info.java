/**
 * The steward's transparency log: an RFC 9162 Merkle tree over its sealed receipt envelopes,
 * inclusion and consistency proofs, and C2SP checkpoints signed as C2SP signed notes (the Ed25519
 * note signatures Go's {@code sumdb/note} and the public witnesses verify). SPEC.md's
 * "Transparency log" section gives the byte-level rules.
 */
package org.meshjava.receipt.tlog;
