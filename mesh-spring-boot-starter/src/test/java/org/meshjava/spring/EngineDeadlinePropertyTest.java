package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServingEngine;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code mesh.engine-deadline}: the steward's engine deadline ({@code
 * Steward.Builder.engineDeadline}), which the starter had no property for, so a stuck engine held
 * its caller for as long as it stayed stuck.
 */
class EngineDeadlinePropertyTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator", "mesh.close-grace=0s");

  @Test
  void aServeWhoseEngineOutlastsTheDeadline_isRefusedEngineFailed() throws Exception {
    HeldEngine stuck = new HeldEngine("stuck");
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      runner
          .withPropertyValues("mesh.engine-deadline=200ms")
          .withBean(ServingEngine.class, () -> stuck)
          .run(
              context -> {
                Steward steward = context.getBean(Steward.class);
                Future<?> serve = HeldEngine.serveOn(threads, steward, "held past the deadline");
                // The engine never returns by itself: only the deadline ends this serve.
                java.util.concurrent.ExecutionException failed =
                    catchThrowableOfType(
                        java.util.concurrent.ExecutionException.class,
                        () -> serve.get(30, TimeUnit.SECONDS));
                assertThat(failed).isNotNull();
                assertThat(failed.getCause())
                    .isInstanceOfSatisfying(
                        ServeException.class,
                        e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
              });
    } finally {
      stuck.release.countDown();
      threads.shutdown();
      assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void zeroNegativeOrUnparseable_failsTheStart_namingTheProperty() {
    for (String bad : new String[] {"0s", "-1s", "0", "soon"}) {
      runner
          .withPropertyValues("mesh.backends[0].name=small", "mesh.engine-deadline=" + bad)
          .run(
              context ->
                  assertThat(context)
                      .as(bad)
                      .getFailure()
                      .hasStackTraceContaining("mesh.engine-deadline"));
    }
  }

  @Test
  void leftOut_meansNone_andTheStewardStarts() {
    runner
        .withPropertyValues("mesh.backends[0].name=small")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Steward.class));
  }
}
