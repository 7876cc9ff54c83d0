/**
 * A generation engine (§5) running Llama-family models from a local Hugging Face directory through
 * Jlama. Jlama needs the incubating Vector API at run time: start the JVM with {@code --add-modules
 * jdk.incubator.vector}.
 */
module org.meshjava.engine.jlama {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;
  requires jlama.core;

  exports org.meshjava.engine.jlama;
}
