package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Words read from a throwable of code we do not own, safely, and the JVM failing meanwhile. */
class ThrowableWordsTest {
  /** A throwable whose message and description throw {@code said}. */
  private static RuntimeException saying(Throwable said) {
    return new IllegalStateException("unused") {
      @Override
      public String getMessage() {
        throw sneaky(said);
      }

      @Override
      public String toString() {
        throw sneaky(said);
      }
    };
  }

  private static RuntimeException sneaky(Throwable t) {
    if (t instanceof Error e) {
      throw e;
    }
    return (RuntimeException) t;
  }

  @Test
  void aThrowableThatSpeaks_isQuoted() {
    IllegalStateException e = new IllegalStateException("device gone");
    assertThat(ThrowableWords.describe(e))
        .isEqualTo("java.lang.IllegalStateException: device gone");
    assertThat(ThrowableWords.messageOf(e)).isEqualTo("device gone");
  }

  @Test
  void wordsThatThrow_areTheClassName_andNoMessage() {
    RuntimeException e = saying(new UnsupportedOperationException("no words"));
    assertThat(ThrowableWords.describe(e)).isEqualTo(e.getClass().getName());
    assertThat(ThrowableWords.messageOf(e)).isNull();
  }

  /** A stack overflow while the words are built is that code's own recursion, not the JVM. */
  @Test
  void aStackOverflowWhileTheWordsAreBuilt_isTheClassNameToo() {
    RuntimeException e = saying(new StackOverflowError());
    assertThat(ThrowableWords.describe(e)).isEqualTo(e.getClass().getName());
    assertThat(ThrowableWords.messageOf(e)).isNull();
  }

  @Test
  void theJvmFailingWhileTheWordsAreBuilt_passes() {
    RuntimeException e = saying(new OutOfMemoryError("Java heap space"));
    assertThatThrownBy(() -> ThrowableWords.describe(e)).isInstanceOf(OutOfMemoryError.class);
    assertThatThrownBy(() -> ThrowableWords.messageOf(e)).isInstanceOf(OutOfMemoryError.class);
  }

  /**
   * Logged with its trace where that prints, by its class's name where printing throws; only the
   * JVM failing while it prints passes.
   */
  @Test
  void logging_aThrowableWhoseWordsThrow_fallsBackToItsClassName() {
    java.util.List<String> logged = new java.util.ArrayList<>();
    IllegalStateException speaks = new IllegalStateException("device gone");
    ThrowableWords.log(
        speaks, t -> logged.add(String.valueOf(t)), kind -> logged.add("bare " + kind));
    RuntimeException mute = saying(new UnsupportedOperationException("no words"));
    ThrowableWords.log(
        mute, t -> logged.add(String.valueOf(t)), kind -> logged.add("bare " + kind));
    assertThat(logged)
        .containsExactly(
            "java.lang.IllegalStateException: device gone", "bare " + mute.getClass().getName());
    RuntimeException failing = saying(new OutOfMemoryError("Java heap space"));
    assertThatThrownBy(
            () -> ThrowableWords.log(failing, t -> logged.add(String.valueOf(t)), kind -> {}))
        .isInstanceOf(OutOfMemoryError.class);
  }

  @Test
  void aCauseThatThrowsWhenAskedFor_isNone_andAGivenOneIsReturned() {
    IllegalStateException cause = new IllegalStateException("inner");
    assertThat(ThrowableWords.causeOf(new RuntimeException(cause))).isSameAs(cause);
    RuntimeException hostile =
        new RuntimeException("outer") {
          @Override
          public synchronized Throwable getCause() {
            throw new UnsupportedOperationException("no cause for you");
          }
        };
    assertThat(ThrowableWords.causeOf(hostile)).isNull();
  }
}
