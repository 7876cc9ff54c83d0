/**
 * The mesh/1 vocabulary: content ids, canonical CBOR, requests, fidelity, energy, outcomes, cost
 * profiles, identities and the serving-engine SPI.
 */
module org.meshjava.core {
  requires static transitive org.jspecify;
  requires org.bouncycastle.provider;
  requires com.fasterxml.jackson.core;
  // Optional: the vector BLAKE3 kernel is used only when the JVM was started with this module.
  requires static jdk.incubator.vector;

  exports org.meshjava.core;
  exports org.meshjava.core.bytes;
  exports org.meshjava.core.cbor;
  exports org.meshjava.core.crypto;
  exports org.meshjava.core.identity;
  exports org.meshjava.core.weights;
}
