package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;

/** The transparency log's text forms: signed notes (checkpoints, cosignatures) and keys. */
class LogFuzzTest {
  @FuzzTest(maxDuration = "20s")
  void note(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> {
          SignedNote note = SignedNote.parse(text);
          if (!note.encoded().equals(text)) {
            throw new AssertionError("accepted note re-encodes differently");
          }
          Checkpoint.parse(note.text());
        },
        LogException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void checkpoint(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> {
          Checkpoint checkpoint = Checkpoint.parse(text);
          if (!checkpoint.body().equals(text)) {
            throw new AssertionError("accepted checkpoint re-encodes differently");
          }
        },
        LogException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void verifierKey(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> {
          NoteVerifierKey key = NoteVerifierKey.parse(text);
          if (!key.encoded().equals(text)) {
            throw new AssertionError("accepted key re-encodes differently");
          }
        },
        LogException.class);
  }
}
