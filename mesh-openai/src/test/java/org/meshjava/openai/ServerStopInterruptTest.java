package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * Stopping the HTTP server with a serve in flight: Jetty's thread pool interrupts the threads still
 * running when it stops, so the serve's thread is interrupted. The steward outlives its server (an
 * embedding application may start another), so its journal must stay locked and usable: the
 * interrupted serve is sealed and journalled, and the steward serves on.
 */
@Timeout(90)
class ServerStopInterruptTest {
  @TempDir Path dir;

  @Test
  void stoppingTheServer_interruptsAServeInFlight_andTheStewardsJournalStaysLockedAndUsable()
      throws Exception {
    HeldEngine held = new HeldEngine(1, 1);
    CountDownLatch ended = new CountDownLatch(1);
    AtomicReference<Object> outcome = new AtomicReference<>();
    StewardListener listener =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            return new ServeObserver() {
              @Override
              public void served(ServeResult result) {
                outcome.set(result);
                ended.countDown();
              }

              @Override
              public void refused(ServeException refusal) {
                outcome.set(refusal);
                ended.countDown();
              }

              @Override
              public void failed(Throwable failure) {
                outcome.set(failure);
                ended.countDown();
              }
            };
          }
        };
    FileJournal journal = FileJournal.open(dir.resolve("steward.journal"));
    Fixture f =
        new Fixture(
            SigningKey.generate(),
            b -> b.backend(held).journal(journal).listener(listener),
            b -> b.port(18150));
    try {
      f.http.sendAsync(
          HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("cut by the stop").toString()))
              .build(),
          HttpResponse.BodyHandlers.discarding());
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      f.server.close();
      assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(held.interrupted).as("Jetty interrupted the serve's thread").isTrue();
      assertThat(outcome.get()).isInstanceOf(ServeResult.class);
      assertThat(journal.locked()).isTrue();

      held.release.countDown(); // the next serve routes to the held engine too
      ServeRequest next =
          ServeRequest.generation(
              org.meshjava.core.ContentId.ofBytes(new byte[] {1}),
              1,
              new org.meshjava.core.ServeBounds(1, org.meshjava.core.Fidelity.F0, 1_000_000));
      assertThat(
              f.steward
                  .serve(next, org.meshjava.core.TokenSequence.of(new int[1]))
                  .receipt()
                  .sequence())
          .isEqualTo(1);
    } finally {
      held.release.countDown();
      f.steward.close();
    }
  }
}
