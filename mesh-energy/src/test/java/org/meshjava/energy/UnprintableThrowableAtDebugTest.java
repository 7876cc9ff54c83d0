package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.energy.OddThrowableReadTest.SpeechlessError;
import org.meshjava.energy.OddThrowableReadTest.SpeechlessException;
import org.slf4j.LoggerFactory;

/**
 * A counter's channel that throws something whose own words throw ({@code getMessage} failing),
 * where the ledger logs the throw at DEBUG (a recheck at the probe's start, a channel told of its
 * probe or of a refused total, the probe's own read): with DEBUG enabled the logging binding asks
 * the throwable for its words, and their throw used to escape the catch that logs it, into the
 * probe. Here {@code DomainLedger}'s logger is at DEBUG for the test (slf4j-simple, this module's
 * test binding, opened to the tests for it by the build's {@code --add-opens}).
 */
class UnprintableThrowableAtDebugTest {
  private final FakeClock clock = new FakeClock();
  private final ScriptedChannel counter = new ScriptedChannel(EnergyDomain.cpuPackage(0), 10);

  /** The scripted counter, its calls other than reads throwing where a test says. */
  private final class Faulty implements EnergyChannel {
    boolean recheckThrows;
    boolean probingThrows;
    boolean refusedThrows;
    boolean readThrowsError;
    // What the calls other than reads throw instead of an exception, where a test sets it.
    Error error;

    @Override
    public String name() {
      return counter.name();
    }

    @Override
    public EnergyDomain domain() {
      return counter.domain();
    }

    @Override
    public long readTotalUj() throws CounterException {
      if (readThrowsError) {
        throw new SpeechlessError();
      }
      return counter.readTotalUj();
    }

    @Override
    public void recheckAtProbe() {
      if (recheckThrows) {
        if (error != null) {
          throw error;
        }
        throw new SpeechlessException();
      }
    }

    @Override
    public void probing(boolean running) {
      if (probingThrows) {
        if (error != null) {
          throw error;
        }
        throw new SpeechlessException();
      }
    }

    @Override
    public void refused() {
      if (refusedThrows) {
        if (error != null) {
          throw error;
        }
        throw new SpeechlessException();
      }
    }
  }

  private final Faulty channel = new Faulty();
  private final DomainLedger ledger = new DomainLedger(channel, LivenessPolicy.standard(), clock);

  /** What {@code action} logged with {@code DomainLedger} at DEBUG; the level is put back after. */
  static String debugLogOf(Runnable action) {
    Object logger = LoggerFactory.getLogger(DomainLedger.class);
    try {
      Field level = logger.getClass().getDeclaredField("currentLogLevel");
      level.setAccessible(true);
      int was = level.getInt(logger);
      level.setInt(logger, 10); // slf4j-simple's DEBUG
      try {
        return CounterLogLevelsTest.logOf(action);
      } finally {
        level.setInt(logger, was);
      }
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("the test binding's level could not be set", e);
    }
  }

  private void probe() {
    ledger.beginProbe();
    for (int i = 0; i < 3; i++) {
      clock.advanceMillis(1);
      try {
        ledger.readLivenessMark();
      } catch (CounterException e) {
        // the probe's verdict below is the test's
      }
    }
    ledger.endProbe(LivenessVerdict.live("advances", 1_000_000), clock.nanoTime());
  }

  @Test
  void aRecheckAtTheProbe_throwingAnExceptionWhoseWordsThrow_isLoggedAtDebug_notThrown() {
    channel.recheckThrows = true;

    String log = debugLogOf(() -> assertThatCode(this::probe).doesNotThrowAnyException());

    assertThat(log)
        .contains("could not recheck its set-up")
        .contains(SpeechlessException.class.getName());
    assertThat(ledger.isLive()).isTrue();
  }

  @Test
  void aChannelToldOfItsProbe_throwingAnExceptionWhoseWordsThrow_isLoggedAtDebug_notThrown() {
    channel.probingThrows = true;

    String log = debugLogOf(() -> assertThatCode(this::probe).doesNotThrowAnyException());

    assertThat(log)
        .contains("could not be told of its probe")
        .contains(SpeechlessException.class.getName());
    assertThat(ledger.isLive()).isTrue();
  }

  @Test
  void theProbesRead_throwingAnErrorWhoseWordsThrow_isAFailedRead_loggedAtDebug() {
    ledger.beginProbe();
    channel.readThrowsError = true;

    String log =
        debugLogOf(
            () ->
                assertThatCode(ledger::readLivenessMark)
                    .isInstanceOf(CounterException.class)
                    .hasMessageContaining(SpeechlessError.class.getName()));

    assertThat(log)
        .contains("the probe's read of energy counter")
        .contains(SpeechlessError.class.getName());
  }

  @Test
  void aChannelToldOfARefusedTotal_throwingAnExceptionWhoseWordsThrow_isLoggedAtDebug_notThrown() {
    assertThat(refusedTotalLog())
        .contains("could not be told its total was refused")
        .contains(SpeechlessException.class.getName());
  }

  /**
   * After a probe, a window whose total leaps past the bound (refused) with the channel's {@code
   * refused()} throwing: checks the window's close throws nothing, and returns the DEBUG log.
   */
  private String refusedTotalLog() {
    probe();
    clock.advanceMillis(5);
    channel.refusedThrows = true;
    counter.add(Long.MAX_VALUE / 4);
    return debugLogOf(
        () ->
            assertThatCode(() -> ledger.leave(ledger.enter(clock.nanoTime()), clock.nanoTime()))
                .doesNotThrowAnyException());
  }

  /**
   * Regression: an Error out of the channel told of a refused total (a driver binding's, a stack
   * overflow) passed the ledger's catch, which took only exceptions, into the serve's close; now
   * every call on the channel outside its reads follows one rule: logged once, not thrown.
   */
  @Test
  void aChannelToldOfARefusedTotal_throwingAnErrorWhoseWordsThrow_isLoggedAtDebug_notThrown() {
    channel.error = new SpeechlessError();

    assertThat(refusedTotalLog())
        .contains("could not be told its total was refused")
        .contains(SpeechlessError.class.getName());
  }

  @Test
  void aRecheckAtTheProbe_throwingAStackOverflow_isLoggedAtDebug_notThrown() {
    channel.recheckThrows = true;
    channel.error = new StackOverflowError();

    String log = debugLogOf(() -> assertThatCode(this::probe).doesNotThrowAnyException());

    assertThat(log).contains("could not recheck its set-up").contains("StackOverflowError");
    assertThat(ledger.isLive()).isTrue();
  }

  @Test
  void theJvmFailing_inAChannelToldOfItsProbe_passes() {
    channel.probingThrows = true;
    OutOfMemoryError heapGone = new OutOfMemoryError("test: the heap is gone");
    channel.error = heapGone;

    assertThatThrownBy(ledger::beginProbe).isSameAs(heapGone);
  }
}
