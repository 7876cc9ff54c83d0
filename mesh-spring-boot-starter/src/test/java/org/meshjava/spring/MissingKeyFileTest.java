package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Regression: a first start copied from the README's {@code application.yml} (which names {@code
 * steward.key}) before any key was made failed with {@code mesh.key-file steward.key cannot be
 * read: java.nio.file.NoSuchFileException: steward.key}, a Java exception's name and no word on
 * what to do. It now says the file does not exist, where it was looked for, and how to make one.
 */
class MissingKeyFileTest {
  @TempDir Path dir;

  @Test
  void aKeyFileThatDoesNotExist_failsTheStart_sayingWhereItLookedAndHowToMakeOne() {
    Path missing = dir.resolve("steward.key");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
        .withPropertyValues(
            "mesh.meter=estimator", "mesh.backends[0].name=small", "mesh.key-file=" + missing)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.key-file " + missing + " does not exist")
                    .hasStackTraceContaining("mesh key generate --out " + missing)
                    .hasStackTraceContaining("leave mesh.key-file out"));
  }
}
