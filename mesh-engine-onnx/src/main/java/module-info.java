/**
 * A typed-decision engine (§3.6) on a real transformer through ONNX Runtime. The default model is
 * all-MiniLM-L6-v2, read from the langchain4j embeddings jar on the class path, so it needs no
 * download.
 */
module org.meshjava.engine.onnx {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;
  requires com.microsoft.onnxruntime;
  requires ai.djl.tokenizers;
  requires com.fasterxml.jackson.core;

  exports org.meshjava.engine.onnx;
}
