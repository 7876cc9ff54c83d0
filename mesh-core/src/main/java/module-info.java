/**
 * The mesh/1 vocabulary: content ids, canonical CBOR, requests, fidelity, energy, outcomes, cost
 * profiles, identities and the serving-engine SPI.
 *
 * <p>{@code org.meshjava.core.crypto.internal} is the large-input BLAKE3 behind the weights digest
 * and {@link org.meshjava.core.crypto.Blake3} (the compression function, the scalar and vector
 * chunk kernels, multi-threaded file hashing): plumbing, exported only to the engine that hashes
 * its model file with it. {@code org.meshjava.core.internal} holds {@code Setting}, the checks the
 * builders of the steward, the OpenAI server and the upstream and jlama engines run on a setting (a
 * count at least some minimum, a time limit above zero), exported only to those modules. Not to
 * org.meshjava.engine: other modules' tests put the reference engine on the class path, which a
 * qualified export does not reach, while this module stays on the module path. (The modules named
 * are built after this one; "module" warnings would name them as not found.)
 */
@SuppressWarnings("module")
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
  exports org.meshjava.core.crypto.internal to
      org.meshjava.engine.onnx;
  exports org.meshjava.core.internal to
      org.meshjava.steward,
      org.meshjava.openai,
      org.meshjava.engine.jlama;
  exports org.meshjava.core.identity;
  exports org.meshjava.core.weights;
}
