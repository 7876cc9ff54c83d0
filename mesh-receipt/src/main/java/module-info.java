/** mesh/1 receipts: the signed core, JCR-1 sealing and verification, and the receipt hash chain. */
module org.meshjava.receipt {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;

  exports org.meshjava.receipt;
  exports org.meshjava.receipt.tlog;
}
