package org.meshjava.conformance.pack.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.conformance.pack.PackReport;
import org.meshjava.conformance.pack.PackRunner;
import org.meshjava.conformance.pack.SubjectLauncher;
import org.meshjava.conformance.pack.SubjectProcess;

/** The whole pack against mesh-java's own subject, through the subprocess protocol. */
class MeshJavaSubjectPackTest {

  @Test
  void meshJavaSubject_passesEveryCase_throughTheSubprocessProtocol() throws Exception {
    List<PackGroup> groups = PackGroup.readAll(SubjectLauncher.pack());
    PackReport report;
    try (SubjectProcess subject = SubjectLauncher.start(MeshJavaPackSubject.class)) {
      report = PackRunner.run(groups, subject, r -> {});
      assertThat(subject.gone())
          .as("subject stopped answering; stderr: " + subject.stderrTail())
          .isFalse();
    }
    assertThat(report.subjectName()).startsWith("mesh-java");
    assertThat(report.with(PackReport.Outcome.FAIL)).as("failed cases").isEmpty();
    assertThat(report.with(PackReport.Outcome.SKIP)).as("skipped cases").isEmpty();
    assertThat(report.total().passed())
        .isEqualTo(groups.stream().mapToInt(g -> g.cases().size()).sum());
    assertThat(PackRunner.exitCode(report)).isZero();
  }
}
