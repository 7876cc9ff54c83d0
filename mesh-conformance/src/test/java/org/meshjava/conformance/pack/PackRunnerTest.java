package org.meshjava.conformance.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PackRunnerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final PackCase VALID =
      PackCase.valid(
          "g/v",
          "a valid case",
          "op",
          JSON.createObjectNode(),
          JSON.createObjectNode().put("x", "1"));
  private static final PackCase INVALID =
      PackCase.invalid("g/i", "an invalid case", "op", JSON.createObjectNode(), "WHY")
          .expecting("index", JSON.getNodeFactory().numberNode(2));

  private static PackReport.Outcome judge(PackCase c, String answer) throws Exception {
    Optional<JsonNode> a = answer == null ? Optional.empty() : Optional.of(JSON.readTree(answer));
    return PackRunner.judge("g", c, a, false).outcome();
  }

  @Test
  void judge_noAnswer_isSkipNeverPass() throws Exception {
    assertThat(judge(VALID, null)).isEqualTo(PackReport.Outcome.SKIP);
    assertThat(judge(INVALID, null)).isEqualTo(PackReport.Outcome.SKIP);
  }

  @Test
  void judge_unsupported_isSkip() throws Exception {
    assertThat(judge(VALID, "{\"id\":\"g/v\",\"result\":\"unsupported\"}"))
        .isEqualTo(PackReport.Outcome.SKIP);
  }

  @Test
  void judge_validNeedsEveryExpectedField() throws Exception {
    assertThat(judge(VALID, "{\"id\":\"g/v\",\"result\":\"valid\",\"output\":{\"x\":\"1\"}}"))
        .isEqualTo(PackReport.Outcome.PASS);
    assertThat(judge(VALID, "{\"id\":\"g/v\",\"result\":\"valid\",\"output\":{}}"))
        .isEqualTo(PackReport.Outcome.FAIL);
    assertThat(judge(VALID, "{\"id\":\"g/v\",\"result\":\"valid\",\"output\":{\"x\":\"2\"}}"))
        .isEqualTo(PackReport.Outcome.FAIL);
    assertThat(judge(VALID, "{\"id\":\"g/v\",\"result\":\"error\"}"))
        .isEqualTo(PackReport.Outcome.FAIL);
    assertThat(judge(VALID, "{\"id\":\"g/other\",\"result\":\"valid\",\"output\":{\"x\":\"1\"}}"))
        .isEqualTo(PackReport.Outcome.FAIL);
  }

  @Test
  void judge_invalidNeedsTheReasonAndFields_notJustFailure() throws Exception {
    assertThat(
            judge(
                INVALID,
                "{\"id\":\"g/i\",\"result\":\"invalid\",\"reason\":\"WHY\",\"output\":{\"index\":2}}"))
        .isEqualTo(PackReport.Outcome.PASS);
    assertThat(
            judge(
                INVALID,
                "{\"id\":\"g/i\",\"result\":\"invalid\",\"reason\":\"OTHER\",\"output\":{\"index\":2}}"))
        .isEqualTo(PackReport.Outcome.FAIL);
    assertThat(
            judge(
                INVALID,
                "{\"id\":\"g/i\",\"result\":\"invalid\",\"reason\":\"WHY\",\"output\":{\"index\":3}}"))
        .isEqualTo(PackReport.Outcome.FAIL);
    assertThat(judge(INVALID, "{\"id\":\"g/i\",\"result\":\"valid\",\"output\":{\"index\":2}}"))
        .isEqualTo(PackReport.Outcome.FAIL);
  }

  @Test
  void same_comparesNumbersByValue() throws Exception {
    assertThat(PackRunner.same(JSON.readTree("{\"a\":[1,2]}"), JSON.readTree("{\"a\":[1.0,2]}")))
        .isTrue();
    assertThat(PackRunner.same(JSON.readTree("5"), JSON.readTree("5000000000"))).isFalse();
    assertThat(PackRunner.same(JSON.readTree("{\"a\":1}"), JSON.readTree("{\"a\":1,\"b\":2}")))
        .isFalse();
  }

  @Test
  void run_shellSubjectAnsweringUnsupported_skipsEveryCaseOfThePack() throws Exception {
    // A subject in plain sh: the protocol needs nothing of Java. It echoes each id as unsupported,
    // cut from the line by the shell itself: a sed per case cost the run a process per case.
    String script =
        "while IFS= read -r line; do"
            + " id=${line#'{\"id\":\"'}; id=${id%%'\"'*};"
            + " printf '{\"id\":\"%s\",\"result\":\"unsupported\"}\\n' \"$id\"; done";
    List<PackGroup> groups = PackGroup.readAll(SubjectLauncher.pack());
    try (SubjectProcess subject =
        SubjectProcess.start(List.of("sh", "-c", script), Duration.ofSeconds(30))) {
      PackReport report = PackRunner.run(groups, subject, r -> {});
      assertThat(subject.gone()).isFalse();
      assertThat(report.with(PackReport.Outcome.SKIP)).hasSize(report.results().size());
      assertThat(report.with(PackReport.Outcome.SKIP))
          .allMatch(r -> r.detail().contains("does not support"));
      assertThat(PackRunner.exitCode(report)).isEqualTo(2);
    }
  }

  /**
   * Regression: a subject that answered every request with a line that is not a JSON object had
   * every case skipped (exit 2, "none failed"), and one whose lines were not JSON was reported as
   * gone at its first case. Each such answer fails its case, quoting it (conformance/README.md).
   */
  @Test
  void run_answersThatAreNotJsonObjects_failTheirCases_andTheSubjectIsNotGone() throws Exception {
    PackGroup g = new PackGroup("g", "d", List.of(VALID, INVALID));
    String script =
        "read a; echo '{\"id\":\"hello\",\"result\":\"unsupported\"}';"
            + " read b; echo 'garbage{'; read c; echo '[\"g/i\",\"invalid\"]'; cat >/dev/null";
    try (SubjectProcess subject =
        SubjectProcess.start(List.of("sh", "-c", script), Duration.ofSeconds(20))) {
      PackReport report = PackRunner.run(List.of(g), subject, r -> {});
      assertThat(subject.gone()).isFalse();
      assertThat(report.results())
          .extracting(PackReport.CaseResult::outcome, PackReport.CaseResult::detail)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  PackReport.Outcome.FAIL, "the answer is not a JSON object: 'garbage{'"),
              org.assertj.core.groups.Tuple.tuple(
                  PackReport.Outcome.FAIL,
                  "the answer is not a JSON object: '[\"g/i\",\"invalid\"]'"));
      assertThat(PackRunner.exitCode(report)).isEqualTo(1);
    }
  }

  @Test
  void judge_aLongAnswerThatIsNotAnObject_isQuotedCutShort() throws Exception {
    String line = "x".repeat(5000);
    PackReport.CaseResult r =
        PackRunner.judge("g", VALID, Optional.of(JSON.getNodeFactory().textNode(line)), false);
    assertThat(r.outcome()).isEqualTo(PackReport.Outcome.FAIL);
    assertThat(r.detail())
        .isEqualTo("the answer is not a JSON object: '" + "x".repeat(80) + "…' (5000 characters)");
  }

  @Test
  void run_subjectThatExitsBeforeItsFirstAnswer_isRefusedOnce_withItsStatusAndStderr()
      throws Exception {
    PackGroup g = new PackGroup("g", "d", List.of(VALID, INVALID));
    List<PackReport.CaseResult> told = new java.util.ArrayList<>();
    try (SubjectProcess subject =
        SubjectProcess.start(
            List.of("sh", "-c", "echo 'cannot load libmesh.so' >&2; exit 7"),
            Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> PackRunner.run(List.of(g), subject, told::add))
          .isInstanceOfSatisfying(
              SubjectException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SubjectException.Reason.EXITED);
                assertThat(e.exitStatus()).hasValue(7);
                assertThat(e.stderrLines()).containsExactly("cannot load libmesh.so");
              });
    }
    assertThat(told).as("no case is judged against a subject that never answered").isEmpty();
  }

  @Test
  void run_subjectThatExitsAfterItsFirstAnswer_skipsTheCasesItLeft_andExitsTwo() throws Exception {
    PackGroup g = new PackGroup("g", "d", List.of(VALID, INVALID));
    try (SubjectProcess subject =
        SubjectProcess.start(
            List.of("sh", "-c", "read a; echo '{\"id\":\"hello\",\"result\":\"unsupported\"}'"),
            Duration.ofSeconds(5))) {
      PackReport report = PackRunner.run(List.of(g), subject, r -> {});
      assertThat(report.total()).isEqualTo(new PackReport.Counts(0, 0, 2));
      assertThat(report.summary())
          .containsExactly(
              "g: 0 passed, 0 failed, 2 skipped", "total: 0 passed, 0 failed, 2 skipped");
      assertThat(PackRunner.exitCode(report)).isEqualTo(2);
    }
  }
}
