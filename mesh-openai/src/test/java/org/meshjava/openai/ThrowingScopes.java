package org.meshjava.openai;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Request scopes that fail, for the tests of what the server does with a scope's throws. */
final class ThrowingScopes {
  private ThrowingScopes() {}

  /** A scope whose {@code open} throws what {@code thrown} makes. */
  static RequestScope opening(Supplier<? extends Error> thrown) {
    return (method, path, header) -> {
      throw thrown.get();
    };
  }

  /**
   * A scope that opens, and whose {@code status} throws what {@code onStatus} makes, and whose
   * {@code close} throws what {@code onClose} makes (nothing when it is null).
   */
  static RequestScope telling(
      Supplier<? extends Error> onStatus, @Nullable Supplier<? extends Error> onClose) {
    return (method, path, header) ->
        new RequestScope.Opened() {
          @Override
          public void status(int status) {
            throw onStatus.get();
          }

          @Override
          public void close() {
            if (onClose != null) {
              throw onClose.get();
            }
          }
        };
  }
}
