package org.meshjava.conformance.pack.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.meshjava.conformance.pack.PackGroup;

/**
 * Writes the conformance pack: one {@code <group>.json} per {@link PackGroup} under {@code
 * conformance/v1/cases/}. Every case is built here from fixed seeds, nonces and clocks, so the pack
 * is the same bytes on every run; the test {@code PackRegenerationTest} fails the build if the
 * committed files differ from what this writes.
 *
 * <p>Usage: {@code PackGenerator [dir]}, default {@code conformance/v1/cases}.
 */
public final class PackGenerator {
  private PackGenerator() {}

  /** Every group of the pack, in file-name order. */
  public static List<PackGroup> groups() {
    List<PackGroup> groups = new java.util.ArrayList<>();
    groups.add(GrantCases.bindings());
    groups.add(EncodingCases.cbor());
    groups.add(ChainCases.chains());
    groups.add(ChainCases.commitments());
    groups.add(ReceiptCases.envelopes());
    groups.add(GrantCases.grants());
    groups.add(EncodingCases.identity());
    groups.add(JournalCases.journals());
    groups.add(ReceiptCases.invalid());
    groups.add(ReceiptCases.valid());
    groups.add(EncodingCases.referenceEngine());
    groups.add(ChainCases.replays());
    groups.add(EncodingCases.requests());
    groups.add(EncodingCases.routes());
    groups.add(EncodingCases.weights());
    return List.copyOf(groups);
  }

  /** Writes every group into {@code dir}, creating it, and returns the groups written. */
  public static List<PackGroup> generate(Path dir) throws IOException {
    Files.createDirectories(dir);
    List<PackGroup> groups = groups();
    for (PackGroup g : groups) {
      Files.write(dir.resolve(g.name() + ".json"), g.toBytes());
    }
    return groups;
  }

  /** Entry point. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "conformance/v1/cases");
    List<PackGroup> groups = generate(dir);
    int cases = groups.stream().mapToInt(g -> g.cases().size()).sum();
    System.out.println(
        "wrote " + cases + " cases in " + groups.size() + " groups under " + dir.toAbsolutePath());
  }
}
