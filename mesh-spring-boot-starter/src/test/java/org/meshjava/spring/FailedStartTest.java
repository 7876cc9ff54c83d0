package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.steward.Steward;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A start that fails says which property is at fault and leaves nothing open behind it: the next
 * start in the same process, over the same journal, is not refused the journal's lock. A key file
 * {@code mesh serve} reads does not fail it. A journal file the failed start created is removed,
 * and said to be new only by the start that succeeds.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailedStartTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator", "mesh.backends[0].name=small");

  @TempDir Path dir;

  private String journalProperty() {
    return "mesh.journal=" + dir.resolve("steward.journal");
  }

  /** A start over the same journal succeeds: no steward or journal of a failed start holds it. */
  private void theJournalStartsAgain() {
    runner
        .withPropertyValues(journalProperty())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Steward.class).readiness().ready()).isTrue();
            });
  }

  /**
   * Regression: a customizer that threw left the journal mesh.journal had opened locked (no steward
   * had taken it to close it), so the next start in the process was refused the journal, "held by
   * another steward in this process".
   */
  @Test
  void aCustomizerThatThrows_failsTheStart_andReleasesTheJournal() {
    runner
        .withPropertyValues(journalProperty())
        .withBean(
            StewardBuilderCustomizer.class,
            () ->
                b -> {
                  throw new IllegalStateException("customizer refused");
                })
        .run(
            context ->
                assertThat(context).getFailure().hasStackTraceContaining("customizer refused"));
    theJournalStartsAgain();
  }

  /**
   * Regression: a customizer whose {@code built} threw left the steward it was handed open (Spring
   * destroys only the beans it was given), holding its journal for the rest of the process.
   */
  @Test
  void aBuiltHookThatThrows_failsTheStart_andClosesTheSteward() {
    runner
        .withPropertyValues(journalProperty())
        .withBean(
            StewardBuilderCustomizer.class,
            () ->
                new StewardBuilderCustomizer() {
                  @Override
                  public void customize(Steward.Builder builder) {}

                  @Override
                  public void built(Steward steward) {
                    throw new IllegalStateException("built refused");
                  }
                })
        .run(context -> assertThat(context).getFailure().hasStackTraceContaining("built refused"));
    theJournalStartsAgain();
  }

  /**
   * Regression: a journal that cannot be opened (a folder, a journal another context holds) failed
   * the start in the journal's words only, naming the file but not the property that named it; and
   * a held one said only "held by another steward …", where {@code mesh serve} says what to do.
   */
  @Test
  void aJournalThatCannotBeOpened_failsTheStart_namingMeshJournal() {
    runner
        .withPropertyValues("mesh.journal=" + dir)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.journal: cannot open " + dir));
    runner
        .withPropertyValues(journalProperty())
        .run(
            first ->
                runner
                    .withPropertyValues(journalProperty())
                    .run(
                        second ->
                            assertThat(second)
                                .getFailure()
                                .hasStackTraceContaining("mesh.journal: journal " + dir)
                                .hasStackTraceContaining("held by another steward")
                                .hasStackTraceContaining(
                                    "stop the steward that holds it (another instance or context"
                                        + " of this application, a running mesh serve")
                                .hasStackTraceContaining("or give this one a journal of its own")));
  }

  /**
   * Regression: a journal kept without a key file started once, and every later start then failed
   * on the first record its new identity could not continue, in words that blamed the file ("the
   * latest snapshot ... is refused (remove it ...)", "edited or cut journal?").
   */
  @Test
  void aJournalOfAnEarlierStart_withoutAKeyFile_failsTheStart_namingMeshKeyFile() {
    runner
        .withPropertyValues(journalProperty())
        .run(
            context -> {
              PromptText prompt = PromptText.of("journalled by this start's identity");
              context
                  .getBean(Steward.class)
                  .serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
            });

    runner
        .withPropertyValues(journalProperty())
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "records of an earlier start, and without mesh.key-file")
                    .hasStackTraceContaining("Set mesh.key-file to the key that wrote it"));
  }

  /**
   * Regression: {@code journal:} with no value bound as an empty file name, and the start failed
   * with "cannot open : not a regular file", naming neither the property nor what to do.
   */
  @Test
  void anEmptyJournal_failsTheStart_sayingWhatToDo() {
    runner
        .withPropertyValues("mesh.journal=")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.journal is empty")
                    .hasStackTraceContaining("remove the key for a journal in memory"));
  }

  /**
   * Regression: a key file an editor saved with a byte order mark, which {@code mesh serve} reads,
   * failed the start: its three bytes were read as three characters, "got 67 characters".
   */
  @Test
  void aKeyFileWithAByteOrderMark_startsAsMeshServeDoes() throws Exception {
    SigningKey key = SigningKey.generate();
    Path file = dir.resolve("notepad.key");
    Files.writeString(
        file,
        "\uFEFF" + HexFormat.of().formatHex(key.exportSeed()) + "\r\n",
        StandardCharsets.UTF_8);

    runner
        .withPropertyValues("mesh.key-file=" + file, "mesh.fresh-chain=true")
        .run(
            context ->
                assertThat(context.getBean(Steward.class).identity())
                    .isEqualTo(DidKey.of(key.verificationKey())));
  }

  /**
   * Regression: the key file was read whole before it was checked, so a key file that named
   * something huge (a device, a sparse file, a log) failed the start with an OutOfMemoryError
   * naming nothing, or filled the heap; it is now read no further than a key file can be long.
   */
  @Test
  void aKeyFileFarLongerThanAKey_failsTheStart_namingIt() throws Exception {
    Path huge = dir.resolve("huge.key");
    try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
      f.setLength(3L << 30); // sparse: no disk used, but larger than any array
    }
    runner
        .withPropertyValues("mesh.key-file=" + huge, "mesh.fresh-chain=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.key-file "
                            + huge
                            + " is longer than 4096 bytes, so it holds no key"));
  }

  // ---- a new journal file and a failed start ------------------------------------------------

  private Path journal() {
    return dir.resolve("steward.journal");
  }

  private String said() {
    return "starting a new journal at " + journal().toAbsolutePath();
  }

  /** A key file, so that a new journal's start fails unless mesh.fresh-chain is set. */
  private String keyFileProperty() throws Exception {
    Path file = dir.resolve("steward.key");
    Files.writeString(
        file,
        HexFormat.of().formatHex(SigningKey.generate().exportSeed()) + "\n",
        StandardCharsets.US_ASCII);
    return "mesh.key-file=" + file;
  }

  /** A bean built after the steward, which fails the start once the steward is built. */
  @Configuration(proxyBeanMethods = false)
  static class FailsAfterTheSteward {
    @Bean
    String needsTheSteward(Steward steward) {
      throw new IllegalStateException("a later bean refused to start");
    }
  }

  /**
   * Regression: the starter said "starting a new journal at …" as soon as it had opened a journal
   * file that was not there, before the start could still fail, and left the file (and the snapshot
   * folder made beside it) when the start then failed. The next start found a journal it took for
   * an earlier start's and said nothing, so a mistyped path was never pointed out. As {@code mesh
   * serve} does, the file the start made is now removed when the start fails, and said to be new
   * only once the application has started; a file that was there before is never removed.
   */
  @Test
  void aStartRefusedWhenTheStewardIsBuilt_removesTheJournalItMade_andSaysNothing(
      CapturedOutput output) throws Exception {
    String key = keyFileProperty();
    // A key and a new journal without mesh.fresh-chain: refused when the steward is built.
    runner
        .withPropertyValues("mesh.journal=" + journal(), key)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.fresh-chain=true for this one start"));
    assertThat(journal()).doesNotExist();
    assertThat(FileSnapshotStore.beside(journal()).directory()).doesNotExist();
    assertThat(output.getAll()).doesNotContain("starting a new journal");

    // The start that succeeds is the one that says the journal is new.
    runner
        .withPropertyValues("mesh.journal=" + journal(), key, "mesh.fresh-chain=true")
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(journal()).exists();
    assertThat(output.getAll()).containsOnlyOnce(said());
  }

  @Test
  void aStartFailingAfterTheStewardWasBuilt_removesTheJournalAndItsSnapshotFolder(
      CapturedOutput output) {
    runner
        .withPropertyValues("mesh.journal=" + journal())
        .withUserConfiguration(FailsAfterTheSteward.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("a later bean refused to start"));
    assertThat(journal()).doesNotExist();
    assertThat(FileSnapshotStore.beside(journal()).directory()).doesNotExist();
    assertThat(output.getAll()).doesNotContain("starting a new journal");
  }

  @Test
  void aFailedStart_neverRemovesAJournalThatWasThereBefore() throws Exception {
    String key = keyFileProperty();
    runner
        .withPropertyValues("mesh.journal=" + journal(), key, "mesh.fresh-chain=true")
        .run(
            context -> {
              PromptText prompt = PromptText.of("journalled before the failed start");
              context
                  .getBean(Steward.class)
                  .serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
            });
    runner
        .withPropertyValues("mesh.journal=" + journal(), key)
        .withUserConfiguration(FailsAfterTheSteward.class)
        .run(context -> assertThat(context).hasFailed());
    runner
        .withPropertyValues("mesh.journal=" + journal(), key)
        .run(
            context ->
                assertThat(context.getBean(Steward.class).head().nextSequence()).isEqualTo(1));

    // An empty file there before the start is not the start's either.
    Path empty = Files.createFile(dir.resolve("empty.journal"));
    runner
        .withPropertyValues("mesh.journal=" + empty)
        .withUserConfiguration(FailsAfterTheSteward.class)
        .run(context -> assertThat(context).hasFailed());
    assertThat(empty).exists();
  }

  /** Starts on {@code properties} with a bean that fails once the steward is built. */
  private void failsAfterTheStewardWith(String... properties) {
    runner
        .withPropertyValues(properties)
        .withUserConfiguration(FailsAfterTheSteward.class)
        .run(context -> assertThat(context).hasFailed());
  }

  /**
   * For a journal that was there before the start, the snapshot folder the failed start made beside
   * it (only the claim's lock file and journal.path in it) goes with the claim, as it does for a
   * new journal, whether the start fails when the steward is built or after.
   */
  @Test
  void aFailedStartOnAnExistingJournal_removesTheSnapshotFolderItMade() throws Exception {
    Path existing = Files.createFile(dir.resolve("existing.journal"));
    Path folder = FileSnapshotStore.beside(existing).directory();
    failsAfterTheStewardWith("mesh.journal=" + existing);
    assertThat(existing).exists();
    assertThat(folder).doesNotExist();

    runner
        .withPropertyValues("mesh.journal=" + existing, keyFileProperty())
        .run(context -> assertThat(context).getFailure().hasStackTraceContaining("fresh-chain"));
    assertThat(folder).doesNotExist();
  }

  /**
   * Regression: a failed start with mesh.snapshots.dir under folders that were missing made them
   * all, and removed only the snapshot folder itself, leaving its parents behind.
   */
  @Test
  void aFailedStart_withAConfiguredFolderUnderMissingFolders_removesThemAll() throws Exception {
    Path existing = Files.createFile(dir.resolve("existing.journal"));
    Path top = dir.resolve("a");
    failsAfterTheStewardWith(
        "mesh.journal=" + existing, "mesh.snapshots.dir=" + top.resolve("b").resolve("snaps"));
    assertThat(top).doesNotExist();
  }

  /**
   * Regression: for a new journal, the journal's removal of its new snapshot folder took the
   * claim's lock file with it, so the claim left the folders made to hold the folder.
   */
  @Test
  void aFailedStartOnANewJournal_withAConfiguredFolderUnderMissingFolders_removesThemAll() {
    Path top = dir.resolve("a");
    failsAfterTheStewardWith(
        "mesh.journal=" + journal(), "mesh.snapshots.dir=" + top.resolve("b").resolve("snaps"));
    assertThat(journal()).doesNotExist();
    assertThat(top).doesNotExist();
  }

  /** A snapshot folder that was there before a failed start stays. */
  @Test
  void aFailedStart_neverRemovesASnapshotFolderThatWasThereBefore() throws Exception {
    Path existing = Files.createFile(dir.resolve("existing.journal"));
    Path folder = Files.createDirectories(FileSnapshotStore.beside(existing).directory());
    failsAfterTheStewardWith("mesh.journal=" + existing);
    assertThat(folder).isDirectory();
  }

  /**
   * A steward built lazily, after the context refreshed, has started once it is built: its new
   * journal is kept when the context closes.
   */
  @Test
  void aLazyStewardBuiltAfterTheStart_keepsItsNewJournal(CapturedOutput output) {
    runner
        .withPropertyValues("mesh.journal=" + journal())
        .withBean(LazyInitializationBeanFactoryPostProcessor.class)
        .run(
            context -> {
              assertThat(journal()).doesNotExist();
              PromptText prompt = PromptText.of("served by a lazy steward");
              context
                  .getBean(Steward.class)
                  .serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
            });
    assertThat(journal()).exists();
    assertThat(output.getAll()).containsOnlyOnce(said());
  }
}
