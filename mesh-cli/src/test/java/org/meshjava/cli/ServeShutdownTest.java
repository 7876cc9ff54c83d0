package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.testing.ChildJava;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;

/**
 * SIGTERM drains {@code mesh serve}, run in a child JVM: a serve in flight (held by a fake upstream
 * until the test lets it answer) completes with a sealed receipt, a request made during the drain
 * is refused 503 {@code shutting_down}, the process exits 0, and the journal it leaves verifies
 * with the receipt in it and a last checkpoint after it.
 */
class ServeShutdownTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void sigterm_drainsTheServeInFlight_refusesNewRequests_andExitsZero() throws Exception {
    CountDownLatch upstreamEntered = new CountDownLatch(1);
    CountDownLatch upstreamRelease = new CountDownLatch(1);
    HeldUpstream upstream = new HeldUpstream(upstreamEntered, upstreamRelease);
    Process child = null;
    try {
      assertThat(mesh("key", "generate", "--out", tmp.resolve("steward.key").toString()).code())
          .isZero();
      Path journal = tmp.resolve("steward.journal");
      Path config = tmp.resolve("mesh.json");
      Files.writeString(
          config,
          """
          {"backends": [{"type": "upstream", "name": "slow", "model": "m", "uj_per_token": 1000,
                         "base_url": "http://127.0.0.1:%d/v1"}]}"""
              .formatted(upstream.port()));
      Path portFile = tmp.resolve("port");
      child = start(config, journal, portFile);
      URI base = URI.create("http://127.0.0.1:" + awaitPort(child, portFile));
      HttpClient http = HttpClient.newHttpClient();

      CompletableFuture<HttpResponse<String>> inFlight =
          http.sendAsync(chat(base, "held until released"), HttpResponse.BodyHandlers.ofString());
      assertThat(upstreamEntered.await(30, TimeUnit.SECONDS))
          .as("the serve reached upstream")
          .isTrue();

      child.destroy(); // SIGTERM
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!draining(http, base)) {
        assertThat(System.nanoTime()).as("the server began draining").isLessThan(deadline);
        Thread.sleep(20);
      }
      HttpResponse<String> late =
          http.send(chat(base, "too late"), HttpResponse.BodyHandlers.ofString());
      assertThat(late.statusCode()).as(late.body()).isEqualTo(503);
      assertThat(JSON.readTree(late.body()).get("error").get("code").asText())
          .isEqualTo("shutting_down");
      assertThat(child.isAlive()).as("still draining the serve in flight").isTrue();

      upstreamRelease.countDown();
      HttpResponse<String> done = inFlight.get(30, TimeUnit.SECONDS);
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      JsonNode energy = JSON.readTree(done.body()).get("usage").get("energy");
      Envelope envelope = Envelope.fromHex(energy.get("envelope_hex").asText());
      assertThat(Jcr1.open(envelope).receipt().sequence()).isZero();

      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exited").isTrue();
      String out = Files.readString(tmp.resolve("child.out"));
      assertThat(child.exitValue()).as(out).isZero();
      assertThat(out).contains("draining").contains("stopped");

      // The lock is released (a second opener succeeds), and the journal holds the receipt.
      MeshCommandTest.Run verify = mesh("journal", "verify", journal.toString());
      assertThat(verify.code()).as(verify.err()).isZero();
      assertThat(verify.out()).contains("1 receipt");
      List<String> lines = Files.readAllLines(journal);
      assertThat(lines.getLast())
          .as("a last checkpoint after the receipt")
          .contains("\"Checkpoint\"");
    } finally {
      upstreamRelease.countDown();
      if (child != null) {
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      upstream.close();
    }
  }

  private Process start(Path config, Path journal, Path portFile) throws IOException {
    return new ProcessBuilder(
            ChildJava.command(
                Mesh.class,
                "serve",
                "--config",
                config.toString(),
                "--key",
                tmp.resolve("steward.key").toString(),
                "--journal",
                journal.toString(),
                "--fresh-chain",
                "--meter",
                "estimator",
                "--port",
                "0",
                "--port-file",
                portFile.toString(),
                "--grace-seconds",
                "60"))
        .redirectErrorStream(true)
        .redirectOutput(tmp.resolve("child.out").toFile())
        .start();
  }

  private String awaitPort(Process child, Path portFile) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
      assertThat(child.isAlive())
          .as("mesh serve exited: %s", Files.readString(tmp.resolve("child.out")))
          .isTrue();
      assertThat(System.nanoTime()).as("mesh serve did not start").isLessThan(deadline);
      Thread.sleep(50);
    }
    return Files.readString(portFile).strip();
  }

  private static boolean draining(HttpClient http, URI base) throws Exception {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(base.resolve("/readyz")).build(),
              HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body()).get("draining").asBoolean();
    } catch (IOException e) {
      return false;
    }
  }

  private static HttpRequest chat(URI base, String prompt) {
    return HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
        .header("Content-Type", "application/json")
        .POST(
            HttpRequest.BodyPublishers.ofString(
                """
                {"model": "slow", "max_tokens": 4,
                 "messages": [{"role": "user", "content": "%s"}]}"""
                    .formatted(prompt)))
        .build();
  }

  /**
   * A one-connection-at-a-time OpenAI-compatible upstream over a plain socket (the JDK's HTTP
   * server is not readable from this module): each chat completion waits for {@code release}, then
   * answers.
   */
  private static final class HeldUpstream implements AutoCloseable {
    private final ServerSocket socket;
    private final Thread thread;

    HeldUpstream(CountDownLatch entered, CountDownLatch release) throws IOException {
      socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      thread =
          new Thread(
              () -> {
                while (!socket.isClosed()) {
                  try (Socket c = socket.accept()) {
                    answer(c, entered, release);
                  } catch (IOException | InterruptedException e) {
                    return;
                  }
                }
              },
              "held-upstream");
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    private static void answer(Socket c, CountDownLatch entered, CountDownLatch release)
        throws IOException, InterruptedException {
      InputStream in = c.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        head.write(b);
      }
      long length = 0;
      for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
        if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
          length = Long.parseLong(line.substring(15).strip());
        }
      }
      in.readNBytes((int) length);
      entered.countDown();
      release.await(60, TimeUnit.SECONDS);
      byte[] body =
          """
          {"choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 1}}"""
              .getBytes(StandardCharsets.UTF_8);
      OutputStream out = c.getOutputStream();
      out.write(
          ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                  + body.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.flush();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
