package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The JVM failing (the heap gone) in a downcall to NVML or IOReport is the process failing, not the
 * counter: it passes as it is ({@code JvmFailure}), as it does out of every other read of a
 * counter, never turned into a failed read or set-up that blames the GPU or IOReport. Anything else
 * thrown across a downcall (a stack overflow among them) is still that call's failure. No fake
 * library can make a downcall throw, so the catch of each is driven through the package-private
 * body it runs.
 */
class NativeCallJvmFailingTest {

  @Test
  void anNvmlCall_inWhichTheHeapRunsOut_passesItOn_notANativeError() {
    assertThatThrownBy(
            () ->
                NvmlLibrary.call(
                    "nvmlDeviceGetUUID",
                    (symbol, memory) -> {
                      throw new OutOfMemoryError("Java heap space");
                    }))
        .isInstanceOf(OutOfMemoryError.class);
  }

  @Test
  void anNvmlEnergyRead_inWhichTheHeapRunsOut_passesItOn() {
    assertThatThrownBy(
            () -> {
              throw NvmlLibrary.threw(
                  "nvmlDeviceGetTotalEnergyConsumption", new OutOfMemoryError("Java heap space"));
            })
        .isInstanceOf(OutOfMemoryError.class);
  }

  @Test
  void anNvmlCall_overflowingItsStack_isStillANativeError() {
    assertThatThrownBy(
            () ->
                NvmlLibrary.call(
                    "nvmlDeviceGetUUID",
                    (symbol, memory) -> {
                      throw new StackOverflowError();
                    }))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> {
              assertThat(e.issue()).isEqualTo(CounterIssue.NATIVE_ERROR);
              assertThat(e.getMessage()).contains("nvmlDeviceGetUUID threw");
            });
  }

  @Test
  void anIoReportSample_inWhichTheHeapRunsOut_passesItOn_otherwiseAFailedRead() {
    assertThatThrownBy(
            () -> {
              throw IoReportNative.failed(
                  CounterIssue.READ_FAILED,
                  "IOReport sample failed: ",
                  new OutOfMemoryError("Java heap space"));
            })
        .isInstanceOf(OutOfMemoryError.class);
    assertThat(
            IoReportNative.failed(
                CounterIssue.READ_FAILED,
                "IOReport sample failed: ",
                new IllegalStateException("scope closed")))
        .satisfies(
            e -> {
              assertThat(e.issue()).isEqualTo(CounterIssue.READ_FAILED);
              assertThat(e.getMessage()).isEqualTo("IOReport sample failed: " + e.getCause());
            });
  }

  /** {@code release} as a handle of CFRelease's type, {@code (MemorySegment)void}. */
  private static MethodHandle asCfRelease(Consumer<Object> release)
      throws ReflectiveOperationException {
    return MethodHandles.lookup()
        .findVirtual(Consumer.class, "accept", MethodType.methodType(void.class, Object.class))
        .bindTo(release)
        .asType(MethodType.methodType(void.class, MemorySegment.class));
  }

  @Test
  void ioReportsRelease_inWhichTheHeapRunsOut_releasesEveryOtherObject_thenPassesItOn()
      throws ReflectiveOperationException {
    List<MemorySegment> released = new ArrayList<>();
    Consumer<Object> release =
        object -> {
          if (released.isEmpty() && object.equals(MemorySegment.ofAddress(3))) {
            released.add(MemorySegment.NULL); // the newest, whose release fails
            throw new OutOfMemoryError("Java heap space");
          }
          released.add((MemorySegment) object);
        };
    MethodHandle cfRelease = asCfRelease(release);
    List<MemorySegment> owned =
        new ArrayList<>(
            List.of(
                MemorySegment.ofAddress(1),
                MemorySegment.ofAddress(2),
                MemorySegment.ofAddress(3)));

    assertThatThrownBy(() -> IoReportNative.releaseAll(cfRelease, owned))
        .isInstanceOf(OutOfMemoryError.class);
    assertThat(released)
        .containsExactly(
            MemorySegment.NULL, MemorySegment.ofAddress(2), MemorySegment.ofAddress(1));
    assertThat(owned).isEmpty();
  }

  @Test
  void ioReportsRelease_throwingAnythingElse_releasesTheRest_andThrowsNothing()
      throws ReflectiveOperationException {
    List<Object> released = new ArrayList<>();
    Consumer<Object> release =
        object -> {
          released.add(object);
          throw new IllegalStateException("CFRelease of a freed object");
        };
    MethodHandle cfRelease = asCfRelease(release);
    List<MemorySegment> owned =
        new ArrayList<>(List.of(MemorySegment.ofAddress(1), MemorySegment.ofAddress(2)));

    IoReportNative.releaseAll(cfRelease, owned);

    assertThat(released).hasSize(2);
    assertThat(owned).isEmpty();
  }
}
