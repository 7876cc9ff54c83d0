package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which errors are the JVM failing, passed as they are, and which are the asked code failing,
 * refused as that code's failure: the heap gone and the JVM's own faults are the first; a stack
 * overflow and the fault of a read past the end of a file the code mapped are the second.
 */
class JvmFailureTest {
  @TempDir Path tmp;

  /**
   * Regression: the fault of a read of a mapped file cut short (an engine's weights rewritten in
   * place) is an {@link InternalError}, and was taken for the JVM failing, so the steward threw it
   * raw out of a serve instead of refusing it as the engine failing.
   */
  @Test
  void theFaultOfAReadOfAMappedFileCutShort_isNotTheJvmFailing() throws Exception {
    Throwable fault = catchThrowable(() -> MappedReadFaultTest.mappedThenCutShort(tmp).get(8191));
    assertThat(fault).isInstanceOf(InternalError.class);

    assertThat(JvmFailure.isFailing(fault)).isFalse();
    JvmFailure.passIfFailing(fault); // returns: the caller refuses it
  }

  @Test
  void theHeapGone_andAnyOtherInternalError_areTheJvmFailing_aStackOverflowIsNot() {
    assertThat(JvmFailure.isFailing(new OutOfMemoryError("simulated"))).isTrue();
    assertThat(JvmFailure.isFailing(new InternalError("simulated"))).isTrue();
    assertThat(catchThrowable(() -> JvmFailure.passIfFailing(new InternalError("simulated"))))
        .isInstanceOf(InternalError.class);
    assertThat(JvmFailure.isFailing(new StackOverflowError())).isFalse();
    assertThat(JvmFailure.isFailing(new AssertionError("simulated"))).isFalse();
    // Out of memory is the JVM failing even where a mapped read's fault is among its causes.
    assertThat(
            JvmFailure.isFailing(
                new OutOfMemoryError("simulated")
                    .initCause(new InternalError("unsafe memory access operation"))))
        .isTrue();
  }
}
