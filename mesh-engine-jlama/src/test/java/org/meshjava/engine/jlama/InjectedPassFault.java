package org.meshjava.engine.jlama;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.meshjava.engine.jlama.testing.TinyLlama;

/**
 * A Jlama engine on the tiny model whose next forward pass throws what a test gives it, at the
 * place Jlama itself would throw from ({@link JlamaEngine.Builder#beforeEachPass}), so that a test
 * sees what the public {@code serve} makes of each failure. Not thread-safe beyond its atomic.
 */
final class InjectedPassFault implements AutoCloseable {
  private final AtomicReference<@Nullable Throwable> next = new AtomicReference<>();
  final JlamaEngine engine;

  InjectedPassFault(Path dir) throws IOException, JlamaEngineException {
    TinyLlama.write(dir, 42);
    engine = JlamaEngine.builder(dir).beforeEachPass(this::throwIfGiven).build();
  }

  /** Makes the next forward pass throw {@code failure} (a RuntimeException or an Error). */
  void nextPassThrows(Throwable failure) {
    if (!(failure instanceof RuntimeException || failure instanceof Error)) {
      throw new IllegalArgumentException("a pass throws only unchecked: " + failure);
    }
    next.set(failure);
  }

  private void throwIfGiven() {
    Throwable t = next.getAndSet(null);
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
  }

  @Override
  public void close() {
    engine.close();
  }
}
