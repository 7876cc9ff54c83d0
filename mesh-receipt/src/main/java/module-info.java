/**
 * mesh/1 receipts: the signed core, JCR-1 sealing and verification, and the receipt hash chain.
 *
 * <p>{@code org.meshjava.receipt} and {@code org.meshjava.receipt.tlog} are the API: what a user
 * builds, verifies and chains, and what checks a steward's transparency log (proofs, checkpoints,
 * signed notes). {@code org.meshjava.receipt.internal} is plumbing shared with the modules that
 * need it: the bare COSE_Sign1 structure (the conformance vectors forge envelopes with it), the
 * steward's receipt log, which stamps and seals the next receipt of the chain, and {@code
 * SignedCores}, a receipt's signed core in the CBOR value model (the API gives it as bytes), which
 * the HTTP binding's JSON view of a receipt reads. {@code org.meshjava.receipt.tlog.internal} is
 * the log's keeping side: the Merkle tree's storage (saved in and rebuilt from snapshots and
 * journals) and the steward's log that signs checkpoints. (The modules they are exported to are
 * built after this one; "module" warnings would name them as not found.)
 */
@SuppressWarnings("module")
module org.meshjava.receipt {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;

  exports org.meshjava.receipt;
  exports org.meshjava.receipt.tlog;
  exports org.meshjava.receipt.internal to
      org.meshjava.steward,
      org.meshjava.openai,
      org.meshjava.conformance;
  exports org.meshjava.receipt.tlog.internal to
      org.meshjava.journal,
      org.meshjava.steward,
      org.meshjava.conformance;
}
