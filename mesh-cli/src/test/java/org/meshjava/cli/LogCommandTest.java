package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.openai.OpenAiServer;
import org.meshjava.steward.Steward;

/** {@code mesh log checkpoint|prove|verify} against a running server, then offline. */
class LogCommandTest {
  @TempDir Path dir;

  private static String serve(Steward s, int i) throws Exception {
    byte[] prompt = ("log " + i).getBytes(StandardCharsets.UTF_8);
    ServeRequest r =
        ServeRequest.generation(
            ContentId.ofBytes(prompt), prompt.length, new ServeBounds(3, Fidelity.F1, 100_000));
    return s.serve(r, TokenSequence.of(new int[prompt.length])).envelope().hex();
  }

  private Path file(String name) {
    return dir.resolve(name);
  }

  @Test
  void keepACheckpoint_serve_proveInclusionAndConsistency_offline() throws Exception {
    try (Steward s = ReferenceSteward.ephemeral();
        OpenAiServer server = OpenAiServer.builder(s).build().start()) {
      String url = server.baseUri().toString();
      String did = s.identity().value();
      serve(s, 0);
      serve(s, 1);
      Run kept = mesh("log", "checkpoint", "--server", url, "-o", file("old.txt").toString());
      assertThat(kept.code()).as(kept.err()).isZero();
      // Said as the grant tools say it, so a fetch into a file is not silent.
      assertThat(kept.out())
          .isEqualTo("wrote " + file("old.txt") + ": the steward's latest checkpoint\n");
      Files.writeString(file("envelope.hex"), serve(s, 2));
      assertThat(
              mesh("log", "checkpoint", "--server", url, "-o", file("new.txt").toString()).code())
          .isZero();
      assertThat(
              mesh(
                      "log",
                      "prove",
                      "--server",
                      url,
                      "--seq",
                      "2",
                      "-o",
                      file("inclusion.json").toString())
                  .code())
          .isZero();
      Run consistency =
          mesh(
              "log",
              "prove",
              "--server",
              url,
              "--from",
              "2",
              "-o",
              file("consistency.json").toString());
      assertThat(consistency.code()).as(consistency.err()).isZero();
      assertThat(consistency.out())
          .isEqualTo("wrote " + file("consistency.json") + ": a consistency proof\n");

      // By envelope (its hex file) or envelope id instead of sequence: the same proof.
      Run byEnvelope =
          mesh(
              "log",
              "prove",
              "--server",
              url,
              "--envelope",
              file("envelope.hex").toString(),
              "-o",
              file("by-envelope.json").toString());
      assertThat(byEnvelope.code()).as(byEnvelope.err()).isZero();
      assertThat(byEnvelope.out())
          .isEqualTo("wrote " + file("by-envelope.json") + ": an inclusion proof\n");
      assertThat(Files.readString(file("by-envelope.json")))
          .isEqualTo(Files.readString(file("inclusion.json")));
      String id =
          org.meshjava.receipt.Envelope.fromHex(Files.readString(file("envelope.hex")).strip())
              .id()
              .hex();
      Run byId = mesh("log", "prove", "--server", url, "--envelope-id", id);
      assertThat(byId.code()).as(byId.err()).isZero();
      assertThat(byId.out()).isEqualTo(Files.readString(file("inclusion.json")));
      Run badId = mesh("log", "prove", "--server", url, "--envelope-id", "xyz");
      assertThat(badId.code()).isNotZero();
      assertThat(badId.err()).contains("--envelope-id is not a content id");

      Run included =
          mesh(
              "log",
              "verify",
              "--steward",
              did,
              "--checkpoint",
              file("new.txt").toString(),
              "--envelope",
              file("envelope.hex").toString(),
              "--proof",
              file("inclusion.json").toString());
      assertThat(included.code()).as(included.err()).isZero();
      assertThat(included.out()).contains("included").contains("leaf 2 of the 3-receipt log");
      // Any one of its files may come on standard input, named -.
      Run piped =
          MeshCommandTest.meshWithInput(
              Files.readAllBytes(file("inclusion.json")),
              "log",
              "verify",
              "--steward",
              did,
              "--checkpoint",
              file("new.txt").toString(),
              "--envelope",
              file("envelope.hex").toString(),
              "--proof",
              "-");
      assertThat(piped.code()).as(piped.err()).isZero();
      assertThat(piped.out()).isEqualTo(included.out());
      Run envelopePiped =
          MeshCommandTest.meshWithInput(
              Files.readAllBytes(file("envelope.hex")),
              "log",
              "prove",
              "--server",
              url,
              "--envelope",
              "-");
      assertThat(envelopePiped.code()).as(envelopePiped.err()).isZero();
      assertThat(envelopePiped.out()).isEqualTo(Files.readString(file("inclusion.json")));
      Run consistent =
          mesh(
              "log",
              "verify",
              "--steward",
              did,
              "--checkpoint",
              file("new.txt").toString(),
              "--old",
              file("old.txt").toString(),
              "--proof",
              file("consistency.json").toString());
      assertThat(consistent.code()).as(consistent.err()).isZero();
      assertThat(consistent.out()).contains("consistent");

      // Another steward's did:key does not verify the checkpoint.
      Steward other =
          Steward.ephemeral()
              .meter(new EstimatorMeter())
              .backend(ReferenceEngine.builder().name("x").build())
              .build();
      String stranger = other.identity().value();
      other.close();
      Run wrongKey =
          mesh("log", "verify", "--steward", stranger, "--checkpoint", file("new.txt").toString());
      assertThat(wrongKey.code()).isEqualTo(1);
      assertThat(wrongKey.err()).contains("UNSIGNED");
      // A receipt that is not leaf 2 does not verify with leaf 2's proof.
      Files.writeString(file("other.hex"), serve(s, 3));
      Run notIncluded =
          mesh(
              "log",
              "verify",
              "--steward",
              did,
              "--checkpoint",
              file("new.txt").toString(),
              "--envelope",
              file("other.hex").toString(),
              "--proof",
              file("inclusion.json").toString());
      assertThat(notIncluded.code()).isEqualTo(1);
      assertThat(notIncluded.err()).contains("BAD_INCLUSION_PROOF");
    }
  }

  @Test
  void aServerThatAnswersWithoutEnd_isRefusedAtTheReplyBound() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicLong sent = new AtomicLong();
      Thread endless =
          new Thread(
              () -> {
                try (Socket s = socket.accept()) {
                  OutputStream out = s.getOutputStream();
                  out.write(
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":\""
                          .getBytes(StandardCharsets.US_ASCII));
                  byte[] more = "a".repeat(65_536).getBytes(StandardCharsets.US_ASCII);
                  while (true) {
                    out.write(more);
                    sent.addAndGet(more.length);
                  }
                } catch (IOException closedByTheClient) {
                  // The command stopped reading.
                }
              });
      endless.setDaemon(true);
      endless.start();
      Run r = mesh("log", "checkpoint", "--server", "127.0.0.1:" + socket.getLocalPort());
      assertThat(r.code()).isNotZero();
      assertThat(r.err())
          .contains("answered more than " + LogCommand.Server.MAX_REPLY_BYTES + " bytes");
      endless.join(10_000);
      assertThat(endless.isAlive()).as("the command cut the server off").isFalse();
      assertThat(sent.get()).isLessThan(64L * LogCommand.Server.MAX_REPLY_BYTES);
    }
  }

  @Test
  void aServerThatIsNotThere_isNamedAsSuch_notAsFailedNull() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    Run r = mesh("log", "checkpoint", "--server", "127.0.0.1:" + port);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .startsWith("mesh log checkpoint: GET http://127.0.0.1:" + port + "/v1/mesh/checkpoint")
        .contains("connection refused")
        .doesNotContain("null");
    Run negative = mesh("log", "prove", "--server", "127.0.0.1:" + port, "--seq", "-1");
    assertThat(negative.code()).isEqualTo(1);
    assertThat(negative.err()).contains("--seq must be zero or more, not -1");
  }

  @Test
  void aServerThatAnswersNoCheckpoint_writesNoFile_andFails() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread other =
          new Thread(
              () -> {
                try (Socket s = socket.accept()) {
                  s.getOutputStream()
                      .write(
                          ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                  + "Content-Length: 2\r\nConnection: close\r\n\r\n{}")
                              .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                  // The command went away.
                }
              });
      other.setDaemon(true);
      other.start();
      Path out = dir.resolve("checkpoint.txt");
      Run r =
          mesh(
              "log",
              "checkpoint",
              "--server",
              "127.0.0.1:" + socket.getLocalPort(),
              "-o",
              out.toString());
      assertThat(r.code()).isEqualTo(1);
      assertThat(r.err()).contains("answered no \"checkpoint\"");
      assertThat(out).doesNotExist();
    }
  }
}
