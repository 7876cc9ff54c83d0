package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code mesh.rapl-root}, as {@code mesh serve --rapl-root}: a known key, and a folder checked at
 * start, whose absence or lack of an {@code intel-rapl:*} zone fails the start naming the property.
 */
class RaplRootPropertyTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.backends[0].name=small");

  @TempDir Path dir;

  /**
   * A powercap folder holding one zone, which is all the start checks; discovery then reports the
   * zone's missing files as it would any unreadable zone.
   */
  private Path powercap() throws Exception {
    return Files.createDirectories(dir.resolve("host-powercap/intel-rapl:0")).getParent();
  }

  @Test
  void aRootHoldingAZone_isAKnownKey_andStartsTheSteward() throws Exception {
    runner
        .withPropertyValues("mesh.rapl-root=" + powercap())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Steward.class));
  }

  @Test
  void aMissingFolder_failsTheStartNamingTheProperty() {
    Path missing = dir.resolve("no-such-folder");
    runner
        .withPropertyValues("mesh.rapl-root=" + missing)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.rapl-root: " + missing + " is not a folder"));
  }

  @Test
  void aFolderHoldingNoZone_failsTheStartNamingTheProperty() throws Exception {
    Path zone = powercap().resolve("intel-rapl:0");
    runner
        .withPropertyValues("mesh.rapl-root=" + zone)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.rapl-root: " + zone + " holds no intel-rapl:* zone"));
  }

  @Test
  void aRootBesideTheEstimator_failsTheStart() throws Exception {
    runner
        .withPropertyValues("mesh.meter=estimator", "mesh.rapl-root=" + powercap())
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.meter=estimator discovers none"));
  }
}
