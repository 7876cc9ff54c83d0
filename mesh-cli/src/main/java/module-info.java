/** The {@code mesh} command line. */
module org.meshjava.cli {
  requires static transitive org.jspecify;
  requires org.meshjava.steward;
  requires org.meshjava.engine;
  requires org.meshjava.engine.onnx;
  requires org.meshjava.engine.jlama;
  requires org.meshjava.conformance;
  requires org.meshjava.openai;
  requires org.meshjava.journal.postgres;
  requires org.meshjava.metrics;
  requires micrometer.registry.prometheus;
  requires com.fasterxml.jackson.databind;
  requires info.picocli;
  requires java.net.http;

  opens org.meshjava.cli to
      info.picocli;
}
