package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.meshWithInput;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * {@code mesh conformance subject} reads the standard input given to {@link Mesh#run} and answers
 * on its output, as every other command does, not the process's {@code System.in} and {@code
 * System.out}: an embedder (or a test) that runs it in-process with its own streams got no answer,
 * and the process's own standard input was read instead.
 */
class ConformanceSubjectStreamsTest {
  // A guard against the hang of reading the process's standard input, not a measure of speed.
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theSubject_readsTheRunsInput_andAnswersOnTheRunsOutput() {
    byte[] requests =
        "{\"id\":\"r1\",\"op\":\"hello\",\"input\":{}}\n\n{\"id\":\"r2\",\"op\":\"hello\"}\n"
            .getBytes(StandardCharsets.UTF_8);

    Run r = meshWithInput(requests, "conformance", "subject");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .as("one answer per request, on the run's output")
        .hasSize(2)
        .satisfies(
            lines -> {
              assertThat(lines.get(0)).contains("\"id\":\"r1\"").contains("mesh-java");
              assertThat(lines.get(1)).contains("\"id\":\"r2\"");
            });
  }
}
