package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A listener that recurses until its stack overflows is a listener's bug, not a failing JVM: by the
 * time the guard catches the {@link StackOverflowError} its frames are gone. It is dropped like any
 * other listener failure, so a granted serve is debited once and hands out its receipt.
 */
class ListenerStackOverflowTest {
  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * Regression: a StackOverflowError from {@code debited} failed the serve after its debit was
   * journalled, and one from the observer's {@code served} after its receipt was sealed: work paid
   * for and a receipt journalled, neither handed out (a resend is served and debited again).
   */
  @Test
  void aListenerThatOverflowsItsStack_neitherFailsTheServe_norDebitsItTwice() throws Exception {
    AtomicInteger overflowed = new AtomicInteger();
    StewardListener recursive =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            return new ServeObserver() {
              @Override
              public void served(ServeResult result) {
                overflowed.incrementAndGet();
                throw new StackOverflowError();
              }
            };
          }

          @Override
          public void debited(DebitResult debit) {
            overflowed.incrementAndGet();
            throw new StackOverflowError();
          }
        };
    GrantChain chain = f.chain(1_000_000);
    ServeResult served;
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).listener(recursive).build()) {
      ServeRequest req = GrantFixture.request("recursive", 4, 10_000);
      served = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(overflowed).hasValue(2);
    }
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).build()) {
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isEqualTo(served.receipt().sequence() + 1);
    }
  }
}
