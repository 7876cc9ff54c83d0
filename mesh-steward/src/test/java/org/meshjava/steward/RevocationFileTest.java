package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.JournalEntry;

/**
 * {@link RevocationFile}: a file of hex revocations, one a line, loaded into a steward line by line
 * (SPEC 30 §11), each line's outcome reported as it is done, and a failure naming the file, the
 * line and the reason.
 */
class RevocationFileTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  private Steward steward() {
    return f.steward(new InMemoryJournal()).build();
  }

  private Path file(String text) throws Exception {
    return Files.writeString(dir.resolve("revoked.hex"), text);
  }

  @Test
  void load_skipsBlankLines_andReportsEachRevocationWithItsLineNumber() throws Exception {
    GrantChain one = f.chain(1_000);
    GrantChain two = f.chain(2_000);
    Revocation first = Revocation.sign(f.org, one, GrantFixture.NOW);
    Revocation second = Revocation.sign(f.caller, two, GrantFixture.NOW);
    Path file = file("\n  \n" + first.toHex() + "\n\n\t" + second.toHex() + "  \n\n");
    List<RevocationFile.Loaded> loaded = new ArrayList<>();
    try (Steward s = steward()) {
      RevocationFile.load(s, file, loaded::add);
      assertThat(loaded)
          .containsExactly(
              new RevocationFile.Loaded(3, first, true),
              new RevocationFile.Loaded(5, second, true));
      assertThat(s.revoke(first)).as("already in force").isFalse();
    }
  }

  /**
   * Regression: a file an editor saved with a byte order mark, which {@code mesh serve
   * --revocations} reads (its reader drops the mark), failed its first line NOT_A_REVOCATION when
   * the Spring starter loaded it from the path, since the mark is not whitespace.
   */
  @Test
  void load_ofAFileWithAByteOrderMark_readsItsFirstLine() throws Exception {
    Revocation r = Revocation.sign(f.org, f.chain(1_000), GrantFixture.NOW);
    Path file = file("\uFEFF" + r.toHex() + "\r\n");
    List<RevocationFile.Loaded> loaded = new ArrayList<>();
    try (Steward s = steward()) {
      RevocationFile.load(s, file, loaded::add);
    }
    assertThat(loaded).containsExactly(new RevocationFile.Loaded(1, r, true));
  }

  @Test
  void load_ofAGrantAlreadyRevoked_reportsItNotRecorded() throws Exception {
    Revocation r = Revocation.sign(f.org, f.chain(1_000), GrantFixture.NOW);
    Path file = file(r.toHex() + "\n" + r.toHex() + "\n");
    List<RevocationFile.Loaded> loaded = new ArrayList<>();
    try (Steward s = steward()) {
      RevocationFile.load(s, file, loaded::add);
    }
    assertThat(loaded)
        .containsExactly(
            new RevocationFile.Loaded(1, r, true), new RevocationFile.Loaded(2, r, false));
  }

  @Test
  void load_ofAMalformedLine_stopsThere_namingFileAndLine_afterLoadingTheLinesBefore()
      throws Exception {
    Revocation r = Revocation.sign(f.org, f.chain(1_000), GrantFixture.NOW);
    Path file = file(r.toHex() + "\n\nnot a revocation\n" + r.toHex() + "\n");
    List<RevocationFile.Loaded> loaded = new ArrayList<>();
    try (Steward s = steward()) {
      RevocationFileException e = loadFails(s, file, loaded::add);
      assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.NOT_A_REVOCATION);
      assertThat(e.file()).isEqualTo(file);
      assertThat(e.line()).isEqualTo(OptionalInt.of(3));
      assertThat(e).hasMessageStartingWith(file + " line 3: not a revocation: ");
      assertThat(e).hasCauseInstanceOf(MalformedGrantException.class);
      assertThat(loaded).containsExactly(new RevocationFile.Loaded(1, r, true));
    }
  }

  @Test
  void load_ofAForgedRevocation_isRefused_withItsLabel_andRecordsNothing() throws Exception {
    Path file = file(f.forgedRevocation(f.chain(1_000)).toHex() + "\n");
    InMemoryJournal journal = new InMemoryJournal();
    try (Steward s = f.steward(journal).build()) {
      RevocationFileException e = loadFails(s, file, loaded -> {});
      assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.REFUSED);
      assertThat(e.line()).isEqualTo(OptionalInt.of(1));
      assertThat(e).hasMessageStartingWith(file + " line 1: refused: ");
      assertThat(e.getCause())
          .isInstanceOfSatisfying(
              GrantRefusedException.class,
              g -> assertThat(g.label()).isEqualTo(DenialLabel.BAD_SIGNATURE));
    }
    assertThat(journal.records()).noneMatch(x -> x.entry() instanceof JournalEntry.Revoked);
  }

  @Test
  void load_thatTheJournalCannotRecord_failsNotRecorded_namingTheLine() throws Exception {
    Path file = file("\n" + Revocation.sign(f.org, f.chain(1_000), GrantFixture.NOW).toHex());
    FailingJournal journal =
        FailingJournal.on(JournalEntry.Revoked.class, FailingJournal.When.ENQUEUE);
    try (Steward s = f.steward(journal).build()) {
      RevocationFileException e = loadFails(s, file, loaded -> {});
      assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.NOT_RECORDED);
      assertThat(e.line()).isEqualTo(OptionalInt.of(2));
      assertThat(e).hasMessageStartingWith(file + " line 2: ");
      assertThat(e).hasCauseInstanceOf(ServeException.class);
    }
  }

  @Test
  void load_ofAFileThatCannotBeRead_failsUnreadable_withNoLine() throws Exception {
    Path missing = dir.resolve("missing.hex");
    try (Steward s = steward()) {
      RevocationFileException e = loadFails(s, missing, loaded -> {});
      assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.UNREADABLE);
      assertThat(e.file()).isEqualTo(missing);
      assertThat(e.line()).isEmpty();
      assertThat(e).hasMessageStartingWith(missing + " cannot be read: ");
      assertThat(e).hasCauseInstanceOf(NoSuchFileException.class);
    }
  }

  /**
   * Regression: the file was read whole, however large ({@code /dev/zero} as {@code
   * mesh.revocations} filled the heap before a line was looked at). One larger than any list of
   * revocations is refused unread, and a device or pipe is read no further than that bound.
   */
  @Test
  void load_ofAFileLargerThanTheBound_failsUnreadable_withoutReadingIt() throws Exception {
    Path huge = dir.resolve("huge.hex");
    try (java.io.RandomAccessFile sparse = new java.io.RandomAccessFile(huge.toFile(), "rw")) {
      sparse.setLength(RevocationFile.MAX_FILE_BYTES + 1L);
    }
    try (Steward s = steward()) {
      RevocationFileException e = loadFails(s, huge, loaded -> {});
      assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.UNREADABLE);
      assertThat(e.line()).isEmpty();
      assertThat(e)
          .hasMessage(
              huge
                  + " cannot be read: java.io.IOException: larger than "
                  + RevocationFile.MAX_FILE_BYTES
                  + " bytes; is it the right file?");
    }
    Path zero = Path.of("/dev/zero");
    if (Files.isReadable(zero)) {
      try (Steward s = steward()) {
        RevocationFileException e = loadFails(s, zero, loaded -> {});
        assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.UNREADABLE);
        assertThat(e).hasMessageContaining("larger than " + RevocationFile.MAX_FILE_BYTES);
      }
    }
  }

  @Test
  void load_ofAFileThatIsNotUtf8_failsUnreadable() throws Exception {
    Path binary = Files.write(dir.resolve("binary.hex"), new byte[] {(byte) 0xC3, 0x28, '\n'});
    try (Steward s = steward()) {
      RevocationFileException e = loadFails(s, binary, loaded -> {});
      assertThat(e.reason()).isEqualTo(RevocationFileException.Reason.UNREADABLE);
      assertThat(e).hasCauseInstanceOf(java.nio.charset.CharacterCodingException.class);
    }
  }

  @Test
  void load_ofTextAlreadyRead_namesTheFileItCameFrom() throws Exception {
    Revocation r = Revocation.sign(f.org, f.chain(1_000), GrantFixture.NOW);
    Path named = dir.resolve("named.hex");
    List<RevocationFile.Loaded> loaded = new ArrayList<>();
    try (Steward s = steward()) {
      RevocationFile.load(s, named, "\r\n" + r.toHex() + "\r\n", loaded::add);
      assertThat(loaded).containsExactly(new RevocationFile.Loaded(2, r, true));
      assertThatThrownBy(() -> RevocationFile.load(s, named, "zz\n", loaded::add))
          .isInstanceOf(RevocationFileException.class)
          .hasMessageStartingWith(named + " line 1: not a revocation: ");
    }
  }

  private static RevocationFileException loadFails(
      Steward s, Path file, Consumer<? super RevocationFile.Loaded> each) {
    return assertThrows(RevocationFileException.class, () -> RevocationFile.load(s, file, each));
  }
}
