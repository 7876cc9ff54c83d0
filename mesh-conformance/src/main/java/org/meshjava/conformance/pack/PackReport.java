package org.meshjava.conformance.pack;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What running the pack against a subject found: one outcome per case, and per-group counts.
 *
 * @param subjectName what the subject called itself, or {@code (unnamed)}
 * @param results every case's outcome, in pack order
 */
public record PackReport(String subjectName, List<CaseResult> results) {

  /** Copies the list. */
  public PackReport {
    Objects.requireNonNull(subjectName, "subjectName");
    results = List.copyOf(results);
  }

  /** A case's outcome. A missing answer is {@link #SKIP}, never {@link #PASS}. */
  public enum Outcome {
    /** The subject gave the expected result, reason and fields. */
    PASS,
    /** The subject answered, and the answer is not what the case expects. */
    FAIL,
    /** The subject gave no answer, or said the operation is unsupported. */
    SKIP
  }

  /**
   * One case's outcome.
   *
   * @param group the case's group
   * @param id the case's id
   * @param outcome pass, fail or skip
   * @param detail why it failed or was skipped; empty on a pass
   */
  public record CaseResult(String group, String id, Outcome outcome, String detail) {
    @Override
    public String toString() {
      return outcome + " " + id + (detail.isEmpty() ? "" : " -- " + detail);
    }
  }

  /**
   * Counts for one group.
   *
   * @param passed cases passed
   * @param failed cases failed
   * @param skipped cases skipped
   */
  public record Counts(int passed, int failed, int skipped) {
    @Override
    public String toString() {
      return passed + " passed, " + failed + " failed, " + skipped + " skipped";
    }
  }

  /** Counts per group, in pack order. */
  @SuppressWarnings("EnumOrdinal") // the counts are indexed in Outcome's declared order
  public Map<String, Counts> byGroup() {
    Map<String, int[]> raw = new LinkedHashMap<>();
    for (CaseResult r : results) {
      raw.computeIfAbsent(r.group(), g -> new int[3])[r.outcome().ordinal()]++;
    }
    Map<String, Counts> out = new LinkedHashMap<>();
    raw.forEach((g, n) -> out.put(g, new Counts(n[0], n[1], n[2])));
    return out;
  }

  /** Counts over the whole pack. */
  @SuppressWarnings("EnumOrdinal") // the counts are indexed in Outcome's declared order
  public Counts total() {
    int[] n = new int[3];
    results.forEach(r -> n[r.outcome().ordinal()]++);
    return new Counts(n[0], n[1], n[2]);
  }

  /** The cases with this outcome. */
  public List<CaseResult> with(Outcome outcome) {
    List<CaseResult> out = new ArrayList<>();
    results.stream().filter(r -> r.outcome() == outcome).forEach(out::add);
    return out;
  }

  /** The summary lines: one per group, then the total. */
  public List<String> summary() {
    List<String> lines = new ArrayList<>();
    byGroup().forEach((g, c) -> lines.add(g + ": " + c));
    lines.add("total: " + total());
    return lines;
  }
}
