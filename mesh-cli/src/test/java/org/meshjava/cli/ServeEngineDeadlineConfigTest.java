package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code "engine_deadline_s"}: the steward's engine deadline ({@code
 * Steward.Builder.engineDeadline}) read from {@code mesh serve}'s configuration, which had no key
 * for it, so a served upstream that never answers held its request for the upstream's whole {@code
 * timeout_s}.
 */
class ServeEngineDeadlineConfigTest {
  @TempDir Path tmp;

  private Path config(String json) throws Exception {
    Path c = tmp.resolve("mesh.json");
    Files.writeString(c, json);
    return c;
  }

  @Test
  void theKey_isRead_andAbsentMeansNone() throws Exception {
    assertThat(ServeConfig.read(config("{\"engine_deadline_s\": 120}")).engineDeadlineSeconds())
        .contains(120L);
    assertThat(ServeConfig.empty().engineDeadlineSeconds()).isEmpty();
  }

  @Test
  void zeroNegativeOrNotANumber_isRefused_namingTheKey() throws Exception {
    for (String bad : List.of("0", "-1", "\"10s\"", "1.5", "true", "99999999999999999999")) {
      MeshCommandTest.Run run =
          MeshCommandTest.mesh(
              "serve",
              "--config",
              config("{\"port\": 0, \"engine_deadline_s\": " + bad + "}").toString());
      assertThat(run.code()).as(bad).isEqualTo(1);
      assertThat(run.err()).as(bad).contains("mesh.json: engine_deadline_s must be");
    }
  }

  @Test
  void anUpstreamThatNeverAnswers_isRefusedEngineFailed_atTheDeadline_notItsTimeout()
      throws Exception {
    List<Socket> held = new CopyOnWriteArrayList<>();
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread accepting =
          new Thread(
              () -> {
                while (!silent.isClosed()) {
                  try {
                    held.add(silent.accept()); // read nothing, answer nothing
                  } catch (java.io.IOException e) {
                    return;
                  }
                }
              },
              "silent-upstream");
      accepting.setDaemon(true);
      accepting.start();
      Path c =
          config(
              """
              {"port": 0, "meter": "estimator", "engine_deadline_s": 1,
               "backends": [{"type": "upstream", "name": "silent", "model": "m",
                             "base_url": "http://127.0.0.1:%d/v1", "timeout_s": 600}]}"""
                  .formatted(silent.getLocalPort()));
      try (InProcessServe serve =
          InProcessServe.start(tmp.resolve("port"), "--config", c.toString())) {
        // Far short of the upstream's 600 s timeout, far past the 1 s deadline.
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + serve.port() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"model\": \"silent\", \"max_tokens\": 4,"
                                + " \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.body()).contains("engine_failed");
        assertThat(answer.statusCode()).as(answer.body()).isGreaterThanOrEqualTo(500);
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }
}
