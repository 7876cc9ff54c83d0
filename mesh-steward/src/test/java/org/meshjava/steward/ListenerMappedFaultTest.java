package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * The listener guard follows the one rule for the JVM failing ({@code JvmFailure}): a listener's
 * fault of a read of a file it mapped that was cut short (an InternalError, but the file's, not the
 * JVM's) is the listener's own failure, logged and dropped like any other, while the heap gone
 * still passes.
 */
class ListenerMappedFaultTest {
  private final GrantFixture f = new GrantFixture();

  private static StewardListener throwingAtStart(Supplier<Error> error) {
    return new StewardListener() {
      @Override
      public ServeObserver serveStarted(ServeStarted serve) {
        throw error.get();
      }
    };
  }

  private Throwable serveWith(StewardListener listener, GrantChain chain) throws Exception {
    try (Steward s = f.steward(new DurableMemoryJournal()).listener(listener).build()) {
      ServeRequest req = GrantFixture.request("observed", 3, 10_000);
      return catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
    }
  }

  /**
   * Regression: the guard let every VirtualMachineError pass, so a listener meeting its own mapped
   * file cut short failed the serve with the raw InternalError ("a fault occurred in a recent
   * unsafe memory access operation in compiled Java code").
   */
  @Test
  void aListenersMappedReadFault_isDropped_theServeGoesOn() throws Exception {
    assertThat(serveWith(throwingAtStart(HeldEngineFaultTest::compiledFault), f.chain(1_000_000)))
        .isNull();
  }

  @Test
  void aListenersOutOfMemoryError_stillPasses() throws Exception {
    assertThat(
            serveWith(throwingAtStart(() -> new OutOfMemoryError("simulated")), f.chain(1_000_000)))
        .isInstanceOf(OutOfMemoryError.class);
  }
}
