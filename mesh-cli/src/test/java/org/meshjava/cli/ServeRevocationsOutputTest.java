package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.internal.JournalFile;

/**
 * Regression: {@code mesh serve --revocations} printed its "revoked grant …" lines on stdout before
 * the steward had started its listener, ahead of the "steward did:key:…" line, so a script that
 * takes stdout's first line for the steward's identity read a revocation instead. They are loaded
 * before anything is served, as before, and said among the steward's lines, before "listening on".
 */
class ServeRevocationsOutputTest {
  @TempDir Path tmp;

  private Path ok(Run r, Path out) {
    assertThat(r.code()).as(r.err()).isZero();
    return out;
  }

  private static int first(List<String> lines, String prefix) {
    return IntStream.range(0, lines.size())
        .filter(i -> lines.get(i).startsWith(prefix))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line starts with " + prefix + ": " + lines));
  }

  private static int last(List<String> lines, String prefix) {
    return IntStream.range(0, lines.size())
        .filter(i -> lines.get(i).startsWith(prefix))
        .max()
        .orElseThrow(() -> new AssertionError("no line starts with " + prefix + ": " + lines));
  }

  /**
   * {@code mesh serve}'s flags for a steward of {@code key} on {@code journal}, then {@code more},
   * serving the reference backends without MiniLM: no case here routes a serve, and its load was
   * most of each start (a start refused for its revocations loads it first too).
   */
  private String[] flags(Path key, Path journal, String... more) throws java.io.IOException {
    return InProcessServe.withoutMiniLm(
        tmp,
        Stream.concat(
                Stream.of(
                    "--key",
                    key.toString(),
                    "--journal",
                    journal.toString(),
                    "--fresh-chain",
                    "--meter",
                    "estimator",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0"),
                Arrays.stream(more))
            .toArray(String[]::new));
  }

  /** A revocation, written to a file, of a grant a new caller issued to {@code steward}. */
  private Path revocation(Path stewardKey) throws Exception {
    Path callerKey = tmp.resolve("caller.key");
    String steward = mesh("key", "generate", "--out", stewardKey.toString()).out().strip();
    ok(mesh("key", "generate", "--out", callerKey.toString()), callerKey);
    Path grant = tmp.resolve("grant.hex");
    ok(
        mesh(
            "grant",
            "issue",
            "--issuer-key",
            callerKey.toString(),
            "--subject",
            steward,
            "--budget-uj",
            "1000000",
            "--expires",
            "PT1H",
            "--out",
            grant.toString()),
        grant);
    Path revocation = tmp.resolve("revocation.hex");
    return ok(
        mesh(
            "grant",
            "revoke",
            "--issuer-key",
            callerKey.toString(),
            "--chain",
            grant.toString(),
            "--out",
            revocation.toString()),
        revocation);
  }

  @Test
  void revokedLines_followTheStewardLine_andPrecedeListeningOn() throws Exception {
    Path stewardKey = tmp.resolve("steward.key");
    Path revocation = revocation(stewardKey);
    String steward = mesh("key", "show", "--key", stewardKey.toString()).out().strip();

    InProcessServe serve =
        InProcessServe.start(
            tmp.resolve("port"),
            flags(
                stewardKey,
                tmp.resolve("steward.journal"),
                "--revocations",
                revocation.toString()));
    serve.close();

    List<String> lines = serve.run().out().lines().toList();
    assertThat(lines.getFirst()).isEqualTo("steward " + steward);
    int revoked = first(lines, "revoked grant ");
    assertThat(revoked)
        .as(String.join("\n", lines))
        .isGreaterThan(last(lines, "backend "))
        .isLessThan(first(lines, "listening on "));
  }

  /**
   * A file whose first line revokes and whose second is refused stops the start, and the first
   * line's revocation stays journalled: it is said on stdout as before the output was reordered,
   * not held back and lost with the start.
   */
  @Test
  void aRefusedLaterLine_stillSaysTheRevocationsJournalledBeforeIt() throws Exception {
    Path stewardKey = tmp.resolve("steward.key");
    Path revocation = revocation(stewardKey);
    Path journal = tmp.resolve("steward.journal");
    // A journal of this steward's that the failed start keeps, as it keeps what it journalled.
    InProcessServe first = InProcessServe.start(tmp.resolve("port"), flags(stewardKey, journal));
    first.close();
    ok(first.run(), journal);
    Path mixed = tmp.resolve("mixed.hex");
    Files.writeString(mixed, Files.readString(revocation).strip() + "\nnot hex\n");

    Run r =
        mesh(
            Stream.concat(
                    Stream.of("serve"),
                    Arrays.stream(flags(stewardKey, journal, "--revocations", mixed.toString())))
                .toArray(String[]::new));

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains(mixed + " line 2: not a revocation");
    assertThat(JournalFile.read(journal).records())
        .filteredOn(x -> x.entry() instanceof JournalEntry.Revoked)
        .hasSize(1);
    assertThat(r.out()).contains("revoked grant ").contains(mixed + " line 1)");
  }
}
