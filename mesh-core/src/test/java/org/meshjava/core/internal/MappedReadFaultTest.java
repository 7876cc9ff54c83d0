package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM's fault for a read of a mapped file past the end it has now is told from any other {@link
 * InternalError}: by HotSpot's words, or by its being thrown from the JDK's own read of the mapped
 * buffer, so that a JVM wording it otherwise is still understood.
 */
class MappedReadFaultTest {
  /** HotSpot's words for the fault. */
  private static final String HOTSPOT = "unsafe memory access operation";

  @TempDir Path tmp;

  /**
   * Regression: the fault was known by HotSpot's words alone (mesh's exit 74), so the same fault
   * worded otherwise was taken for a bug. Here as the interpreter reports the read: from the
   * buffer's own get (compiled code may report it in the caller, where the words are left).
   */
  @Test
  void theFaultInOtherWords_isKnownByWhereItWasThrown() {
    InternalError reworded = new InternalError("SIGBUS at a mapped address");
    reworded.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement("java.nio.DirectByteBuffer", "get", "DirectByteBuffer.java", 340),
          new StackTraceElement("org.meshjava.jcp.PackedSpent", "until", "PackedSpent.java", 177)
        });
    assertThat(MappedReadFault.in(reworded)).isTrue();
  }

  @Test
  void anInternalErrorOfOurOwn_orAnotherError_isNot() {
    assertThat(MappedReadFault.in(new InternalError("simulated"))).isFalse();
    assertThat(MappedReadFault.in(new IllegalStateException("unsafe memory access operation")))
        .isFalse();
  }

  /**
   * Regression: an {@link InternalError} of an engine's own class whose message throws was read
   * unguarded, so every guard that asks {@link JvmFailure} about an engine's throw ended with the
   * message's throw instead of its typed refusal.
   */
  @Test
  void anInternalErrorWhoseMessageThrows_isNot_andItsThrowEndsNothing() {
    InternalError unsayable =
        new InternalError() {
          private static final long serialVersionUID = 1L;

          @Override
          public String getMessage() {
            throw new IllegalStateException("no words");
          }
        };
    assertThat(MappedReadFault.in(unsayable)).isFalse();
    assertThat(JvmFailure.isFailing(new IllegalStateException("wrapped", unsayable))).isFalse();
    assertThat(JvmFailure.isFailing(unsayable)).isTrue();
  }

  /**
   * The fault as the JVM throws it on a pool's worker and hands it back to the caller, as Jlama's
   * forward pass runs its matrix work: through {@code join} (the pool's copy of the error, the
   * worker's as its cause) and through {@code get} (an {@link ExecutionException} around it).
   */
  @Test
  void aRealFaultOnAWorkerThread_handedBackByThePool_isKnown() throws Exception {
    MappedByteBuffer cutShort = mappedThenCutShort();
    ForkJoinPool pool = new ForkJoinPool(1);
    try {
      Throwable joined = catchThrowable(() -> pool.submit(() -> cutShort.get(8191)).join());
      Throwable got = catchThrowable(() -> pool.submit(() -> cutShort.get(8191)).get());
      assertThat(joined).isInstanceOf(InternalError.class);
      assertThat(got).isInstanceOf(ExecutionException.class);
      assertThat(MappedReadFault.in(joined)).as("joined: %s", joined).isTrue();
      assertThat(MappedReadFault.in(got)).as("got: %s", got).isTrue();
      assertThat(MappedReadFault.in(new RuntimeException(new RuntimeException(got)))).isTrue();
    } finally {
      pool.shutdownNow();
    }
  }

  /** The causes are followed a bounded way: a cycle among them ends the walk, answering no. */
  @Test
  void aCycleAmongTheCauses_endsTheWalk_answeringNo() {
    RuntimeException a = new RuntimeException("a");
    InternalError b = new InternalError("simulated", a);
    a.initCause(b);
    assertThat(MappedReadFault.in(a)).isFalse();
    assertThat(MappedReadFault.in(b)).isFalse();
  }

  /** A throwable of an engine's own class whose parts are overridden, each as the test says. */
  private static class Oddly extends InternalError {
    private static final long serialVersionUID = 1L;

    Oddly(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable getCause() {
      throw new IllegalStateException("no cause to give");
    }
  }

  /**
   * Regression: the causes were read unguarded, so an {@link InternalError} (or a wrapper) whose
   * {@code getCause} throws ended every guard that asks {@link JvmFailure} about an engine's throw
   * with that throw ("IllegalStateException: no cause to give") instead of its typed refusal. A
   * cause that cannot be read ends the chain; the fault itself is still known by its own words.
   */
  @Test
  void aThrowableWhoseCauseThrows_endsTheWalk_andItsThrowEndsNothing() {
    Oddly plain = new Oddly("simulated");
    RuntimeException wrapper =
        new RuntimeException("wraps") {
          private static final long serialVersionUID = 1L;

          @Override
          public synchronized Throwable getCause() {
            throw new IllegalStateException("no cause to give");
          }
        };

    assertThat(MappedReadFault.in(plain)).isFalse();
    assertThat(MappedReadFault.in(wrapper)).isFalse();
    assertThat(MappedReadFault.in(new Oddly("a fault occurred in a recent " + HOTSPOT))).isTrue();
    assertThat(JvmFailure.isFailing(plain)).isTrue();
    assertThat(JvmFailure.isFailing(new Oddly("a fault occurred in a recent " + HOTSPOT)))
        .isFalse();
  }

  /**
   * Regression: the first frame was read unguarded, so an {@link InternalError} whose {@code
   * getStackTrace} throws, or answers null or a null frame, ended the guard with that throw (or a
   * {@link NullPointerException}) instead of its typed refusal. Frames that cannot be read say
   * nothing of where it was thrown; its words still may.
   */
  @Test
  void anInternalErrorWhoseFramesThrowOrAreMissing_isKnownByItsWordsAlone() {
    for (StackTraceElement[] given : new StackTraceElement[][] {null, {null}}) {
      assertThat(MappedReadFault.in(framesAre("simulated", () -> given))).isFalse();
      assertThat(MappedReadFault.in(framesAre(HOTSPOT, () -> given))).isTrue();
    }
    Supplier<StackTraceElement[]> throwing =
        () -> {
          throw new IllegalStateException("no frames to give");
        };
    assertThat(MappedReadFault.in(framesAre("simulated", throwing))).isFalse();
    assertThat(MappedReadFault.in(framesAre(HOTSPOT, throwing))).isTrue();
    assertThat(JvmFailure.isFailing(new RuntimeException(framesAre("simulated", throwing))))
        .isFalse();
  }

  /** The JVM failing while a part is read passes, as it does while the words are read. */
  @Test
  void theJvmFailingWhileTheCauseIsRead_passes() {
    InternalError failing =
        new InternalError("simulated") {
          private static final long serialVersionUID = 1L;

          @Override
          public synchronized Throwable getCause() {
            throw new OutOfMemoryError("simulated");
          }
        };
    assertThat(catchThrowable(() -> MappedReadFault.in(failing)))
        .isInstanceOf(OutOfMemoryError.class);
  }

  /**
   * A cause chain far longer than any engine's wrapping (here 100 000 deep) or one that names
   * itself as its cause is walked a bounded way: no stack overflow, no endless loop, answering no.
   * The fault within the bound is known.
   */
  @Test
  void aVeryDeepChain_orOneThatIsItsOwnCause_isWalkedABoundedWay() {
    Throwable deep = new InternalError("simulated");
    for (int i = 0; i < 100_000; i++) {
      deep = new RuntimeException(null, deep);
    }
    RuntimeException selfCaused =
        new RuntimeException("itself") {
          private static final long serialVersionUID = 1L;

          @Override
          public synchronized Throwable getCause() {
            return this;
          }
        };
    Throwable faultWithin = new InternalError(HOTSPOT);
    for (int i = 0; i < 31; i++) {
      faultWithin = new RuntimeException(null, faultWithin);
    }

    assertThat(MappedReadFault.in(deep)).isFalse();
    assertThat(MappedReadFault.in(selfCaused)).isFalse();
    assertThat(MappedReadFault.in(faultWithin)).isTrue();
    assertThat(MappedReadFault.in(new RuntimeException(null, faultWithin)))
        .as("the fault as the 33rd throwable of the chain, past the bound")
        .isFalse();
  }

  /**
   * A region's end after a throw: no fault held back leaves the throw as it was; a fault taken
   * there is what the region failed with, the throw suppressed on it, unless the throw is the JVM
   * failing, which stays, the fault suppressed on it; one instance is never suppressed on itself.
   */
  @Test
  void aThrowAtARegionsEnd_isMergedWithTheFaultTakenThere() {
    IllegalStateException thrown = new IllegalStateException("over garbage");
    InternalError held = new InternalError(HOTSPOT);
    OutOfMemoryError failing = new OutOfMemoryError("simulated");

    assertThat(MappedReadFault.afterThrow(thrown, () -> {})).isSameAs(thrown);
    assertThat(thrown.getSuppressed()).isEmpty();
    Throwable merged =
        MappedReadFault.afterThrow(
            thrown,
            () -> {
              throw held;
            });
    assertThat(merged).isSameAs(held);
    assertThat(held.getSuppressed()).containsExactly(thrown);
    InternalError alsoHeld = new InternalError(HOTSPOT);
    assertThat(MappedReadFault.atFault(failing, alsoHeld)).isSameAs(failing);
    assertThat(failing.getSuppressed()).containsExactly(alsoHeld);
    assertThat(alsoHeld.getSuppressed()).isEmpty();
    assertThat(MappedReadFault.atFault(null, alsoHeld)).isSameAs(alsoHeld);
    assertThat(MappedReadFault.atFault(alsoHeld, alsoHeld)).isSameAs(alsoHeld);
    assertThat(alsoHeld.getSuppressed()).isEmpty();
  }

  /** An {@link InternalError} saying {@code message}, whose frames are {@code frames}' answer. */
  private static InternalError framesAre(String message, Supplier<StackTraceElement[]> frames) {
    return new InternalError(message) {
      private static final long serialVersionUID = 1L;

      @Override
      public StackTraceElement[] getStackTrace() {
        return frames.get();
      }
    };
  }

  /**
   * Another {@link InternalError} wrapped deep is still not the fault, whatever wraps it; the fault
   * wrapped as deep is.
   */
  @Test
  void anotherInternalErrorWrappedDeep_isNot_theFaultWrappedAsDeep_is() throws IOException {
    Throwable other = new InternalError("should not reach here");
    InternalError fault;
    try {
      mappedThenCutShort().get(8191);
      throw new AssertionError("the read past the end did not fault");
    } catch (InternalError e) {
      fault = e;
    }
    Throwable wrappedFault = fault;
    for (int i = 0; i < 10; i++) {
      other = new RuntimeException(new ExecutionException(other));
      wrappedFault = new RuntimeException(new ExecutionException(wrappedFault));
    }
    assertThat(MappedReadFault.in(other)).isFalse();
    assertThat(MappedReadFault.in(wrappedFault)).isTrue();
  }

  /**
   * Regression: code the JIT compiled does not throw the fault at the read. HotSpot skips the read
   * (the value is garbage) and throws at the thread's next safepoint poll, which with the read
   * inlined is past the guard's {@code catch}: the guard returned the garbage and the error escaped
   * to its caller ("[round 0: thrown past the guard]"; in most rounds on JDK 25, with C1 or C2, and
   * in none interpreted). Ending the guarded region with {@link MappedReadFault#deliverPending}
   * brings the fault into it. Each round makes the guard hot, then cuts its file.
   */
  @Test
  void aFaultCompiledCodeHoldsBack_isThrownInsideTheGuard_thatEndsByDeliveringIt()
      throws Exception {
    for (int round = 0; round < 5; round++) {
      Path file = Files.write(tmp.resolve("hot-" + round), new byte[1 << 16]);
      try (FileChannel ch =
              FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
          Arena arena = Arena.ofConfined()) {
        MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 1 << 16, arena);
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
          sum += guardedRead(mapped, (i * 31) & 0xffff);
        }
        assertThat(sum).isZero();
        ch.truncate(0);
        Throwable late = null;
        int read = 0;
        try {
          read = guardedRead(mapped, 40_000);
          // A fault held back past the guard is thrown at the next poll: a loop's is one.
          for (int i = 0; i < 1_000; i++) {
            Thread.onSpinWait();
          }
        } catch (InternalError e) {
          late = e;
        }
        assertThat(late).as("round %s: thrown past the guard", round).isNull();
        assertThat(read)
            .as("round %s: the guard returned %s from a cut file", round, read)
            .isEqualTo(FAULTED);
      }
    }
  }

  /** What {@link #guardedRead} returns when its read faulted. */
  private static final int FAULTED = -1;

  /** A guard as mesh writes them: the read, the fault delivered inside, the fault refused. */
  private static int guardedRead(MemorySegment mapped, long at) {
    try {
      try {
        return mapped.get(ValueLayout.JAVA_BYTE, at);
      } finally {
        MappedReadFault.deliverPending();
      }
    } catch (InternalError e) {
      if (!MappedReadFault.in(e)) {
        throw e;
      }
      return FAULTED;
    }
  }

  private MappedByteBuffer mappedThenCutShort() throws IOException {
    return mappedThenCutShort(tmp);
  }

  /**
   * A buffer over two pages of a file in {@code dir} that is then cut to nothing: its last byte
   * faults.
   */
  static MappedByteBuffer mappedThenCutShort(Path dir) throws IOException {
    Path file = Files.write(dir.resolve("mapped"), new byte[8192]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192);
      ch.truncate(0);
      return buffer;
    }
  }
}
