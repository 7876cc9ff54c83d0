package org.meshjava.conformance.pack.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.conformance.pack.SubjectLauncher;

class PackRegenerationTest {

  @Test
  void pack_regeneratesByteForByte(@TempDir Path tmp) throws Exception {
    PackGenerator.generate(tmp);
    Path committed = SubjectLauncher.pack();
    TreeSet<String> fresh = names(tmp);
    assertThat(names(committed)).as("files under conformance/v1/cases").isEqualTo(fresh);
    List<String> differ = new ArrayList<>();
    for (String f : fresh) {
      if (!java.util.Arrays.equals(
          Files.readAllBytes(tmp.resolve(f)), Files.readAllBytes(committed.resolve(f)))) {
        differ.add(f);
      }
    }
    assertThat(differ)
        .as("regenerated pack files that differ from the committed ones (run PackGenerator)")
        .isEmpty();
  }

  @Test
  void pack_hasAtLeast150Cases_eachWithACommentAndAnIdUniqueInThePack() throws Exception {
    List<PackGroup> groups = PackGroup.readAll(SubjectLauncher.pack());
    List<String> ids = groups.stream().flatMap(g -> g.cases().stream()).map(PackCase::id).toList();
    assertThat(ids).hasSizeGreaterThanOrEqualTo(150).doesNotHaveDuplicates();
    assertThat(groups)
        .extracting(PackGroup::name)
        .contains(
            "cbor",
            "receipts-valid",
            "receipts-invalid",
            "envelopes",
            "chains",
            "grants",
            "bindings",
            "journals",
            "replays",
            "reference-engine");
  }

  private static TreeSet<String> names(Path dir) throws Exception {
    try (var files = Files.list(dir)) {
      return new TreeSet<>(files.map(p -> p.getFileName().toString()).toList());
    }
  }
}
