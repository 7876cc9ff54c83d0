package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantChain;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A listener's throwable is the listener's code, as an engine's is: one whose {@code getMessage} or
 * {@code toString} throws cannot be printed, and the guard that logs and drops it must not then
 * fail the serve with the printing's throw. Observing never breaks a serve, nor turns a typed
 * refusal into an untyped one.
 */
class ListenerUnprintableThrowTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** A stack overflow of the listener's own that cannot be printed: its words throw. */
  static final class UnprintableOverflow extends StackOverflowError {
    private static final long serialVersionUID = 1L;

    @Override
    public String getMessage() {
      throw new IllegalStateException("no words");
    }
  }

  /**
   * An error the listener guard lets pass (the JVM failing, as far as it can tell) that cannot be
   * printed: after the work it is logged and dropped all the same.
   */
  static final class UnprintableInternal extends InternalError {
    private static final long serialVersionUID = 1L;

    @Override
    public String getMessage() {
      throw new IllegalStateException("no words");
    }
  }

  /** A listener that throws an unprintable throwable of {@code kind} from {@code where}. */
  private static StewardListener throwing(String where, String kind) {
    RuntimeException runtime = new EngineThrowsOddlyTest.Unsayable();
    StackOverflowError overflow = new UnprintableOverflow();
    InternalError internal = new UnprintableInternal();
    Runnable fail =
        () -> {
          if (kind.equals("overflow")) {
            throw overflow;
          }
          if (kind.equals("internal")) {
            throw internal;
          }
          throw runtime;
        };
    ScriptedListener scripted =
        new ScriptedListener(
            phase -> {
              if (where.equals(phase.name())) {
                fail.run();
              }
            },
            outcome -> {
              if (outcome.equals(where)) {
                fail.run();
              }
            },
            () -> {
              if (where.equals("debited")) {
                fail.run();
              }
            });
    return new StewardListener() {
      @Override
      public ServeObserver serveStarted(ServeStarted serve) {
        if (where.equals("serveStarted")) {
          fail.run();
        }
        return scripted.serveStarted(serve);
      }

      @Override
      public void debited(DebitResult debit) {
        scripted.debited(debit);
      }

      @Override
      public void journalWritten(JournalWrite write) {
        if (where.equals("journalWritten")) {
          fail.run();
        }
      }
    };
  }

  /**
   * The logging's fallback is for words that cannot be built; the heap running out while the trace
   * is printed is the process failing, and passes rather than being logged as the listener's.
   */
  @org.junit.jupiter.api.Test
  void theJvmFailingWhileAThrowIsPrinted_passes_whileOtherPrintingFailuresFallBackToTheClass() {
    List<String> fellBack = new java.util.ArrayList<>();
    Throwable thrown = new IllegalStateException("the listener's");
    GuardedListener.logThrown(
        thrown,
        t -> {
          throw new UnsupportedOperationException("no words");
        },
        fellBack::add);
    assertThat(fellBack).containsExactly(IllegalStateException.class.getName());

    Throwable passed =
        catchThrowable(
            () ->
                GuardedListener.logThrown(
                    thrown,
                    t -> {
                      throw new OutOfMemoryError("Java heap space");
                    },
                    fellBack::add));
    assertThat(passed).isInstanceOf(OutOfMemoryError.class);
    assertThat(fellBack).hasSize(1);
  }

  /**
   * Regression: the guard logged the listener's throwable with its stack trace, and printing it
   * threw; that throw left the guard and ended the serve untyped.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "serveStarted:runtime",
        "ROUTE:runtime",
        "AUTHORISE:runtime",
        "METER:runtime",
        "SEAL:runtime",
        "served:runtime",
        "debited:runtime",
        "journalWritten:runtime",
        "ROUTE:overflow",
        "METER:overflow",
        "SEAL:internal",
        "served:internal",
        "debited:internal",
        "journalWritten:internal"
      })
  void anUnprintableThrowFromAListener_leavesTheServeServed(String at) throws Exception {
    String[] parts = at.split(":");
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.steward(new DurableMemoryJournal()).listener(throwing(parts[0], parts[1])).build()) {
      ServeRequest req = GrantFixture.request("hello", 3, CEILING);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(s.spend().spend(chain.leaf().id()).debitedUj())
          .isEqualTo(r.receipt().energy().uj());
      assertThat(s.spend().spend(chain.leaf().id()).reservedUj()).isZero();
    }
  }

  /**
   * Regression: a refusal told to a listener whose throw could not be printed reached the caller as
   * that printing's {@code IllegalStateException}, not as the refusal.
   */
  @ParameterizedTest
  @ValueSource(strings = {"runtime", "overflow"})
  void anUnprintableThrowFromAListenerTold_aRefusal_leavesTheRefusalTyped(String kind)
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.steward(new DurableMemoryJournal()).listener(throwing("refused", kind)).build()) {
      ServeRequest req = GrantFixture.request("hello", 3, CEILING);
      // A ceiling past the chain's budget: refused before any work.
      ServeRequest over = GrantFixture.request("hello", 3, BUDGET + 1);
      Throwable t =
          catchThrowable(() -> s.serve(over, GrantFixture.payload(over), f.present(chain, over)));
      assertThat(t).isInstanceOf(ServeException.class);
      assertThat(s.spend().spend(chain.leaf().id()).reservedUj()).isZero();
      assertThat(List.of(s.serve(req, GrantFixture.payload(req), f.present(chain, req))))
          .hasSize(1);
    }
  }
}
