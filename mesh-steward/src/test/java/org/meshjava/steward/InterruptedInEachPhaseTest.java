package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.StewardListener;

/**
 * A granted serve whose thread is interrupted as each phase begins (an application cancelling it
 * through its future), heard by a listener that itself throws when told the serve was refused or
 * failed: whichever way the serve ends, its hold is let go exactly once (the grant debited what the
 * journal says, nothing left reserved or unresolved), the steward serves on, and a steward started
 * again on the file journal finds the same spend, no unresolved serve and the same chain head.
 */
class InterruptedInEachPhaseTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * Interrupts the serving thread as {@code at} begins; throws when the serve is refused or failed.
   */
  private static StewardListener interruptingAt(ServePhase at) {
    return new ScriptedListener(
        phase -> {
          if (phase == at) {
            Thread.currentThread().interrupt();
          }
        },
        outcome -> {
          if (!outcome.equals("served")) {
            throw new IllegalStateException("listener broke on " + outcome);
          }
        },
        () -> {});
  }

  @ParameterizedTest
  @EnumSource(ServePhase.class)
  void anInterruptAsAPhaseBegins_letsTheHoldGoOnce_andARestartAgrees(ServePhase at)
      throws Exception {
    Path journal = dir.resolve("steward.journal");
    GrantChain chain = f.chain(BUDGET);
    long remaining;
    long next;
    try (Steward s = f.steward(FileJournal.open(journal)).listener(interruptingAt(at)).build()) {
      ServeRequest req = GrantFixture.request("interrupted at " + at, 3, CEILING);
      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      Thread.interrupted(); // clear it for what follows, whoever kept it
      assertThat(t)
          .as("%s", t)
          .satisfiesAnyOf(
              e -> assertThat(e).isNull(), e -> assertThat(e).isInstanceOf(ServeException.class));
      assertThat(s.unresolved()).isEmpty();
      remaining = s.spend().remainingUj(chain);
      assertThat(remaining).isLessThan(BUDGET).isGreaterThan(BUDGET - CEILING);
      for (var link : chain.ids()) {
        assertThat(s.spend().spend(link).reservedUj()).isZero();
      }

      ServeRequest after = GrantFixture.request("after it", 3, CEILING);
      s.serve(after, GrantFixture.payload(after), f.present(chain, after));
      remaining = s.spend().remainingUj(chain);
      next = s.head().nextSequence();
    }
    try (Steward s = f.steward(FileJournal.open(journal)).build()) {
      assertThat(s.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isEqualTo(next);
    }
  }
}
