/**
 * The mesh/1 vocabulary: content ids, canonical CBOR, requests, fidelity, energy, outcomes, cost
 * profiles, identities and the serving-engine SPI.
 *
 * <p>{@code org.meshjava.core.crypto.internal} is the large-input BLAKE3 behind the weights digest
 * and {@link org.meshjava.core.crypto.Blake3} (the compression function, the scalar and vector
 * chunk kernels, multi-threaded file hashing): plumbing, exported only to the engine that hashes
 * its model file with it. (That module is built after this one; "module" warnings would name it as
 * not found.)
 *
 * <p>{@code org.meshjava.core.cbor} is the CBOR value model with its canonical encoder and strict
 * decoder, in which mesh-java builds and reads mesh/1's signed structures (§6, SPEC.md 10). It is
 * not API: the value types give their canonical form as bytes (what a user hashes, signs or
 * compares with a vector), and the model is exported only to the modules whose code works in it.
 * The package keeps its name, without {@code .internal}, because every importer and the mutation
 * runs' configuration name it.
 *
 * <p>{@code org.meshjava.core.internal} holds a request's canonical form as a CBOR value and its
 * reader ({@code RequestCbor}): the API gives a request's canonical form only as bytes ({@link
 * org.meshjava.core.CanonicalForm#encode()}), and the journal, which embeds requests in its
 * records, and the command line, which reads one from JSON, work in the CBOR value model. It also
 * holds the rules several modules must apply alike: {@code JvmFailure} (router, energy, steward),
 * {@code MappedReadFault} (journal, steward, cli, and the Jlama engine, which maps its weights and
 * sits below the journal) and {@code WellFormedText}, the unpaired-surrogate rule (router, openai).
 *
 * <p>Internal packages are for what an engine author never calls. A qualified export reaches only
 * named modules: an engine module that requires only this one runs its tests with the steward on
 * the class path, where an internal package of this module cannot be reached. So what an engine's
 * builder shares with this module ({@link org.meshjava.core.Setting}, {@link
 * org.meshjava.core.Unsigned}) is API; the CBOR model and {@code RequestCbor}, which only the
 * steward's own modules use, are not, and those engines' tests export them to the class path with
 * {@code --add-exports} (ARCHITECTURE.md, "API and internal packages").
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
  exports org.meshjava.core.cbor to
      org.meshjava.receipt,
      org.meshjava.jcp,
      org.meshjava.journal,
      org.meshjava.openai,
      org.meshjava.conformance,
      org.meshjava.cli;
  exports org.meshjava.core.crypto;
  exports org.meshjava.core.crypto.internal to
      org.meshjava.engine.onnx;
  exports org.meshjava.core.identity;
  exports org.meshjava.core.internal to
      org.meshjava.router,
      org.meshjava.engine.jlama,
      org.meshjava.energy,
      org.meshjava.journal,
      org.meshjava.steward,
      org.meshjava.openai,
      org.meshjava.cli;
  exports org.meshjava.core.weights;
}
