package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * Regression: a streamed serve whose thread was interrupted while it waited on the upstream (the
 * steward's engine deadline interrupts an overrunning engine, and so does a shutdown) failed as the
 * upstream's fault: Jetty's stream answers an interrupt with a bare {@code InterruptedIOException},
 * so the serve said "the upstream's stream failed: the connection ended", logged a WARN blaming an
 * upstream that was only slow, and dropped the thread's interrupt. It fails as interrupted now,
 * with no such line, and the interrupt kept.
 */
class UpstreamInterruptedStreamTest {
  @Test
  void aStreamInterruptedMidReply_failsAsInterrupted_notAsTheUpstreamsFault() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread up =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (Socket s = listener.accept()) {
                      var unused = s.getInputStream().read(new byte[8192]);
                      OutputStream out = s.getOutputStream();
                      String delta = UpstreamCutWordsTest.DELTA;
                      String chunk = Integer.toHexString(delta.length()) + "\r\n" + delta + "\r\n";
                      out.write(
                          (UpstreamCutWordsTest.HEAD + chunk).getBytes(StandardCharsets.UTF_8));
                      out.flush();
                      // A slow upstream: the rest of the stream never comes while the test runs.
                      hold.await(30, TimeUnit.SECONDS);
                    } catch (Exception ignored) {
                      // The test's assertions say what went wrong.
                    }
                  });
      UpstreamEngine engine =
          Fixture.remote(URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/v1"));
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hold me.", 8);
      CountDownLatch firstDelta = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean interruptKept = new AtomicBoolean();
      String log =
          Fixture.stderrOf(
              () -> {
                Thread serving =
                    Thread.ofPlatform()
                        .start(
                            () -> {
                              try {
                                engine.serve(
                                    asked.request(),
                                    asked.payload(),
                                    t -> {
                                      firstDelta.countDown();
                                      return true;
                                    });
                              } catch (Throwable e) {
                                failure.set(e);
                              }
                              interruptKept.set(Thread.currentThread().isInterrupted());
                            });
                try {
                  assertThat(firstDelta.await(20, TimeUnit.SECONDS)).isTrue();
                  serving.interrupt();
                  serving.join(20_000);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      hold.countDown();
      up.join();
      assertThat(failure.get())
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("interrupted");
      assertThat(interruptKept).isTrue();
      assertThat(log).doesNotContain("reply failed");
    }
  }
}
