package org.meshjava.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * {@code HttpServeBenchmark}'s in-process mesh figures count a thread that began after the window's
 * baseline and ended before its last reading: Jetty's pool and the journal's I/O pool replace idle
 * threads while a window runs, and such threads counted nothing, so the figures fell by whatever
 * those threads had done.
 */
class InProcessMeshFigureTest {
  /** Keeps the allocation from being optimised away. */
  static volatile Object kept;

  @Test
  void aThreadBegunAndEndedInTheWindow_countsWhatItAllocated() throws Exception {
    LongSupplier allocated = HttpServeBenchmark.inProcessMesh(true);
    allocated.getAsLong();
    CountDownLatch done = new CountDownLatch(1);
    CountDownLatch end = new CountDownLatch(1);
    Thread worker =
        Thread.ofPlatform()
            .name("mesh-figure-test")
            .start(
                () -> {
                  byte[][] arrays = new byte[8][];
                  for (int i = 0; i < arrays.length; i++) {
                    arrays[i] = new byte[1 << 20];
                  }
                  kept = arrays;
                  done.countDown();
                  try {
                    end.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    done.await();
    allocated.getAsLong();
    end.countDown();
    worker.join();

    assertThat(allocated.getAsLong()).isGreaterThanOrEqualTo(8L << 20);
  }
}
