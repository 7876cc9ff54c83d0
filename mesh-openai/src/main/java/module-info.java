/**
 * The OpenAI-compatible HTTP binding (§2.3): a {@link org.meshjava.steward.Steward} behind {@code
 * /v1/chat/completions}, {@code /v1/responses}, {@code /v1/models} and the mesh endpoints, on Jetty
 * 12; and an engine that forwards to any OpenAI-compatible server.
 */
module org.meshjava.openai {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.steward;
  requires transitive com.fasterxml.jackson.databind;
  requires org.eclipse.jetty.client;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.http;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.util;
  requires org.slf4j;
  requires jdk.management;

  exports org.meshjava.openai;
}
