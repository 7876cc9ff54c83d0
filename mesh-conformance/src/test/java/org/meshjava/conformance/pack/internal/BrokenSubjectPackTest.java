package org.meshjava.conformance.pack.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.conformance.pack.PackReport;
import org.meshjava.conformance.pack.PackRunner;
import org.meshjava.conformance.pack.SubjectLauncher;
import org.meshjava.conformance.pack.SubjectProcess;

/** A subject broken in one known way fails exactly the cases flagged with that rule. */
class BrokenSubjectPackTest {

  @Test
  void stringKeyOrderSubject_failsExactlyTheEncoderKeyOrderCases() throws Exception {
    assertFailsExactlyFlagged(BrokenSubjects.StringKeyOrder.class, "EncoderKeyOrder");
  }

  @Test
  void subjectSkippingTheProvenanceCoupling_failsExactlyTheProvenanceCouplingCases()
      throws Exception {
    assertFailsExactlyFlagged(BrokenSubjects.SkipsProvenanceCoupling.class, "ProvenanceCoupling");
  }

  private static void assertFailsExactlyFlagged(Class<?> subjectMain, String flag)
      throws Exception {
    List<PackGroup> groups = PackGroup.readAll(SubjectLauncher.pack());
    Set<String> flagged =
        groups.stream()
            .flatMap(g -> g.cases().stream())
            .filter(c -> c.flags().contains(flag))
            .map(PackCase::id)
            .collect(Collectors.toSet());
    assertThat(flagged).as("cases flagged " + flag).isNotEmpty();
    PackReport report;
    try (SubjectProcess subject = SubjectLauncher.start(subjectMain)) {
      report = PackRunner.run(groups, subject, r -> {});
    }
    Set<String> failed =
        report.with(PackReport.Outcome.FAIL).stream()
            .map(PackReport.CaseResult::id)
            .collect(Collectors.toSet());
    assertThat(report.with(PackReport.Outcome.SKIP)).isEmpty();
    assertThat(failed).isEqualTo(flagged);
    assertThat(PackRunner.exitCode(report)).isEqualTo(1);
  }
}
