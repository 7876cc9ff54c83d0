package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.InMemoryJournal;

/**
 * An engine that closes its own steward from inside a serve, under an engine deadline (the engine
 * runs on a thread of its own): the close does not wait for that serve, as it does not on the
 * serving thread without a deadline; the serve is then refused {@code NOT_RECORDED}.
 */
@Timeout(60)
class EngineClosesItsStewardTest {
  private final GrantFixture f = new GrantFixture();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final AtomicReference<Steward> steward = new AtomicReference<>();
  private final AtomicReference<Throwable> closeFailed = new AtomicReference<>();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  /**
   * Regression: the close waited for the serve whose engine called it, which waited for the engine,
   * so both stood still for the shorter of the deadline and the close's grace.
   */
  @Test
  void anEngineClosingItsStewardFromItsOwnThread_isNotWaitedFor() throws Exception {
    HungEngine closer =
        new HungEngine("closer") {
          @Override
          void during() {
            try {
              steward.get().close();
            } catch (RuntimeException e) {
              closeFailed.set(e);
            }
            release.countDown();
          }
        };
    Steward s =
        f.steward(new InMemoryJournal())
            .backend(closer)
            .engineDeadline(Duration.ofHours(1))
            .closeGrace(Duration.ofHours(1))
            .build();
    steward.set(s);
    ServeRequest r = GrantFixture.request("close it", 4, 70_000).withModel("closer");
    Future<ServeResult> serving = threads.submit(() -> s.serve(r, GrantFixture.payload(r)));
    assertThatThrownBy(() -> serving.get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    assertThat(closeFailed.get()).isNull();
    assertThat(closer.entered).hasValue(1);
    assertThatThrownBy(() -> s.serve(r, GrantFixture.payload(r)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
  }
}
