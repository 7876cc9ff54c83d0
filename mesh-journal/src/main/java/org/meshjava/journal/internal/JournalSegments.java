package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;

/**
 * A file journal's archived segments (SPEC.md §60.8): records rotated out of the live file, kept in
 * {@code <journal>.segments/} as files named by their first record's sequence (20 decimal digits,
 * {@code .jsonl}), each holding whole lines of consecutive records in the journal's own encoding.
 * Together with the live file they are the whole history; a snapshot covers what they hold, so a
 * restart never reads them, and {@code mesh journal verify} checks them when they are present.
 * Stateless.
 */
public final class JournalSegments {
  private JournalSegments() {}

  /** What a segment directory's name adds to its journal's name. */
  public static final String EXTENSION = ".segments";

  /** What a segment's name ends with after its 20 digits. */
  private static final String SUFFIX = ".jsonl";

  /**
   * What a pending segment's name ends with after its 20 digits: an archive writes the segment
   * under this name, and gives it its final one only once the live file has been cut past it.
   */
  private static final String PENDING_SUFFIX = SUFFIX + ".pending";

  /**
   * What the name of the file an archive writes before its first pending segment adds to the
   * journal's: {@code <journal>.segments-named-after-cut}, beside the journal rather than in the
   * segment folder, so that the folder holds segments alone (a tool that takes its last file by
   * name takes the last segment) and two journals in one folder each have their own. Where it is, a
   * segment bears its final name only once the live file was cut past it; a journal without it was
   * archived by a version that named the segment first, and is judged as such.
   */
  public static final String MARKER = EXTENSION + "-named-after-cut";

  /** The segment directory of the journal at {@code journal}. */
  public static Path directory(Path journal) {
    return SequenceFiles.beside(journal, EXTENSION);
  }

  /**
   * Refuses {@code path} as a live journal when the file it leads to (through any symbolic links)
   * is one of a journal's archived segments: named by its first record in a folder named for a
   * journal as {@link #directory} names it. A segment holds an older stretch of the history, so a
   * steward opened on it would serve with every later record's spends rolled back, and its appends
   * would go into the archive. Opening and {@code mesh journal verify} both call this, so they
   * reach the same verdict.
   *
   * @throws JournalException {@code CORRUPT}, naming {@code path}, the segment and its journal
   */
  public static void requireNotSegment(Path path) throws JournalException {
    Path real = SequenceFiles.realFile(path);
    Path folder = real.getParent();
    if (folder == null || folder.getFileName() == null) {
      return;
    }
    Path folderName = folder.getFileName();
    String name = folderName.toString();
    if (name.length() <= EXTENSION.length()
        || !name.endsWith(EXTENSION)
        || !(new SequenceFiles(folder, SUFFIX).holds(real)
            || new SequenceFiles(folder, PENDING_SUFFIX).holds(real))) {
      return;
    }
    Path journal = folder.resolveSibling(name.substring(0, name.length() - EXTENSION.length()));
    throw new JournalException(
        JournalException.Reason.CORRUPT,
        "cannot use "
            + path
            + " as a journal: "
            + (real.equals(path.toAbsolutePath()) ? "it is " : "it leads to " + real + ", ")
            + "an archived segment of journal "
            + journal
            + ", which holds only an older stretch of its records, not a live journal (serving"
            + " from it would roll back the spends recorded after it, and append into the"
            + " archive); name the live journal file instead (restore it from a copy if it was"
            + " replaced), and leave the segment where mesh journal archive wrote it",
        null);
  }

  /**
   * One segment: its file, the sequence of its first record, and whether it is pending (written by
   * an archive that had not yet named it: {@code <20 digits>.jsonl.pending}).
   */
  public record Segment(Path file, long firstSeq, boolean pending) {
    /** A segment under its final name. */
    public Segment(Path file, long firstSeq) {
      this(file, firstSeq, false);
    }
  }

  /**
   * The segments present, pending ones among them, by first sequence (a pending one after a final
   * one of the same sequence).
   */
  public static List<Segment> list(Path journal) throws JournalException {
    SequenceFiles files = files(journal);
    SequenceFiles pending = new SequenceFiles(directory(journal), PENDING_SUFFIX);
    List<Segment> out = new ArrayList<>();
    try {
      for (Path f : files.list()) {
        if (!Files.isRegularFile(f)) {
          // A folder, a link to one or to nothing: no archive names one so. Read as a segment it
          // failed as unreadable, which a read then blamed on the sound segment before it.
          throw new JournalException(
              JournalException.Reason.CORRUPT,
              files.seq(f),
              "archived segment "
                  + f
                  + " is not a file (a folder, or a link to one or to nothing, named as a"
                  + " segment): move it out of "
                  + directory(journal)
                  + ", and if it took the place of a segment, restore that from a copy",
              null);
        }
        out.add(new Segment(f, files.seq(f)));
      }
      for (Path f : pending.list()) {
        out.add(new Segment(f, pending.seq(f), true));
      }
      out.sort(
          java.util.Comparator.comparingLong(Segment::firstSeq).thenComparing(Segment::pending));
    } catch (IOException e) {
      throw listRefused(journal, e);
    }
    return out;
  }

  /**
   * The {@code IO} refusal of a listing of the segment folder of the journal at {@code journal}
   * that {@code e} failed. A denied one also says what to do: every read that needs the segments (a
   * start from genesis, {@code mesh journal verify}, a check of the records a snapshot covers)
   * lists the folder first, and "permission denied" alone left an operator to guess whether the
   * folder or a segment in it was at fault, and what to change.
   */
  static JournalException listRefused(Path journal, IOException e) {
    Path folder = directory(journal);
    return readRefused("cannot list", folder, folder, e);
  }

  /**
   * The {@code IO} refusal of a read of the segment {@code file} (final or pending) that {@code e}
   * failed. A denied one says what to do, as a denied listing of its folder does ({@link
   * #listRefused}): a segment folder listed but holding a segment this user may not read (one
   * archived by its owner, mode 0600) was refused "cannot read F: permission denied" alone.
   */
  static JournalException readRefused(Path file, IOException e) {
    Path folder = file.toAbsolutePath().getParent();
    return readRefused("cannot read", file, folder == null ? file : folder, e);
  }

  /**
   * The {@code IO} refusal of {@code what} on {@code where}, in or being the segment folder {@code
   * folder}, that {@code e} failed; a denied one says to give this user read access there.
   */
  private static JournalException readRefused(String what, Path where, Path folder, IOException e) {
    return new JournalException(
        JournalException.Reason.IO,
        what
            + " "
            + where
            + ": "
            + FailureWords.about(where, e)
            + FailureWords.remedyIfDenied(
                e,
                "grant this user read access to the segment folder "
                    + folder
                    + " and the segments in it, or run as the user who owns them"),
        e);
  }

  /**
   * The first record of the segments kept for the journal at {@code journal} when the records
   * before it have no segment there, though the live file begins later, at {@code liveStart}: the
   * first segments were removed and later ones kept. -1 when the segments there begin at record 0,
   * or none is there that holds records before the live file's.
   *
   * @throws JournalException {@code IO} as {@link #list}
   */
  public static long keptFrom(Path journal, long liveStart) throws JournalException {
    List<Segment> segments = list(journal);
    if (segments.isEmpty()) {
      return -1;
    }
    long first = segments.getFirst().firstSeq();
    return first > 0 && first < liveStart ? first : -1;
  }

  /** What an operator can do about a segment that is there but damaged, as each refusal says. */
  private static final String RESTORE =
      "restore it from a copy, or move every segment away so that the snapshot alone stands for"
          + " them";

  /**
   * Whether the segments of the journal at {@code journal} hold its history from record 0.
   *
   * @throws JournalException {@code IO} if the segment folder cannot be listed (something other
   *     than a folder is there), {@code CORRUPT} if the first segment does not begin with the
   *     record its name gives
   */
  public static boolean from0(Path journal) throws JournalException {
    List<Segment> segments = list(journal);
    if (segments.isEmpty()) {
      return false;
    }
    // On a journal I/O thread, as the scans that read the segments: asked on a caller's thread
    // (mesh
    // journal verify), an interrupt during the read would close its descriptor, which may be of a
    // file this process holds locked swapped in under the segment's name, and let that lock go.
    Segment first = segments.getFirst();
    JournalIo.run(() -> checkNamed(first));
    return first.firstSeq() == 0;
  }

  /**
   * Checks that segment {@code s} begins with the record its name gives. The name is all that
   * places a segment; one renamed (or another file put in its place) would otherwise be read as the
   * records it names being absent, and a starting steward skips the check of absent archived
   * records, so a segment that is there but is not what it is named is {@code CORRUPT}, naming it.
   *
   * @throws JournalException {@code CORRUPT} naming the segment, {@code IO} if it cannot be read
   */
  public static void checkNamed(Segment s) throws JournalException {
    long first = firstRecord(s);
    if (first < 0) {
      throw new JournalException(
          JournalException.Reason.CORRUPT,
          s.firstSeq(),
          "archived segment " + s.file() + " holds no whole record" + RENAME,
          null);
    }
    if (first != s.firstSeq()) {
      throw misnamed(s, first);
    }
  }

  /** What an operator can do about a segment not named for its first record. */
  private static final String RENAME = "; give it the name of its first record, " + RESTORE;

  private static JournalException misnamed(Segment s, long first) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        s.firstSeq(),
        "archived segment "
            + s.file()
            + " is named for record "
            + s.firstSeq()
            + " but begins with record "
            + first
            + RENAME,
        null);
  }

  /**
   * The sequence of segment {@code s}'s first record; -1 when it holds no whole line.
   *
   * @throws JournalException {@code CORRUPT} for an empty first line, one longer than any record or
   *     one that is no record, {@code IO}
   */
  private static long firstRecord(Segment s) throws JournalException {
    try (HeldJournals.ReadChannel read = HeldJournals.openToRead(s.file())) {
      FileChannel ch = read.channel();
      byte[] line = new LineReader(ch, 0, ch.size()).next();
      if (line == null) {
        return -1;
      }
      if (line.length == 0) {
        throw EmptyLine.refused(s.file(), 0, s.firstSeq() - 1);
      }
      return RecordCodec.seqOf(line, "the first line of archived segment " + s.file());
    } catch (LineReader.TooLong e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT,
          s.firstSeq(),
          "in " + s.file() + ", " + FailureWords.of(e),
          e);
    } catch (IOException e) {
      throw readRefused(s.file(), e);
    }
  }

  /** The file a segment starting at {@code firstSeq} has. */
  public static Path file(Path journal, long firstSeq) {
    return files(journal).file(firstSeq);
  }

  /** The file an archive writes the segment starting at {@code firstSeq} to until it names it. */
  public static Path pendingFile(Path journal, long firstSeq) {
    return new SequenceFiles(directory(journal), PENDING_SUFFIX).file(firstSeq);
  }

  /**
   * The marker file beside {@code journal} (beside the file its links lead to, as its segment
   * folder is) that says its segments are named only once the live file was cut past them (see
   * {@link #marked}).
   */
  public static Path marker(Path journal) {
    return SequenceFiles.beside(journal, MARKER);
  }

  /**
   * The marker's twin: the same proof kept in a second file beside {@code journal}, hidden ({@code
   * .<journal>.segments-named-after-cut}), which an archive writes with the marker. Why two: a
   * journal without the proof is judged as one an older version archived, whose killed archive
   * leaves what a copy of the journal taken before its last archive looks like, so removing one
   * file by the name an operator sees (or a glob such as {@code <journal>.*}) would let such a copy
   * put back open and serve again every spend recorded after it was taken.
   */
  public static Path markerTwin(Path journal) {
    Path marker = marker(journal);
    return marker.resolveSibling("." + marker.getFileName());
  }

  /**
   * The longest file name, in bytes, that the file systems a journal is kept on take (ext4, XFS,
   * btrfs, tmpfs and ZFS: 255 bytes; APFS and NTFS: 255 characters, which are never fewer).
   */
  public static final int MAX_NAME_BYTES = 255;

  /**
   * The longest name, in UTF-8 bytes, a journal file may have: that of its {@link #markerTwin}, the
   * longest name made beside it, still fits in {@link #MAX_NAME_BYTES}.
   */
  public static final int MAX_JOURNAL_NAME_BYTES = MAX_NAME_BYTES - 1 - MARKER.length();

  /**
   * Refuses the journal file {@code file}, opened as {@code path}, whose name is too long for the
   * names an archive makes beside it: the twin of its marker, the longest, would exceed {@link
   * #MAX_NAME_BYTES}, and every archive would fail on it ("File name too long") after writing the
   * marker. Refused when the journal is opened, before anything is made, so that a steward is not
   * started on a journal that can never be archived.
   *
   * @throws JournalException {@code NAME_TOO_LONG}, naming the limit
   */
  public static void requireNameFits(Path path, Path file) throws JournalException {
    Path name = file.getFileName();
    if (name == null) {
      return;
    }
    int bytes = name.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes <= MAX_JOURNAL_NAME_BYTES) {
      return;
    }
    throw new JournalException(
        JournalException.Reason.NAME_TOO_LONG,
        "cannot open "
            + path
            + ": the journal file's name "
            + (path.equals(file) ? "" : "(" + file + ") ")
            + "is "
            + bytes
            + " bytes long, and a journal's name may be at most "
            + MAX_JOURNAL_NAME_BYTES
            + " bytes (UTF-8), for an archive names files beside it that add up to "
            + (MAX_NAME_BYTES - MAX_JOURNAL_NAME_BYTES)
            + " bytes to it, and a file name may be at most "
            + MAX_NAME_BYTES
            + " bytes; rename the journal file (SPEC.md 60.8)",
        null);
  }

  /**
   * Whether {@code journal} carries the proof an archive writes before its first pending segment:
   * its {@link #marker} or its {@link #markerTwin}, either being enough, so that removing one does
   * not turn the journal into one an older version archived. Anything at either name counts, so a
   * marker cannot be turned into a folder or a link to weaken the rule without its being seen.
   */
  public static boolean marked(Path journal) {
    return Files.exists(marker(journal), LinkOption.NOFOLLOW_LINKS)
        || Files.exists(markerTwin(journal), LinkOption.NOFOLLOW_LINKS);
  }

  private static SequenceFiles files(Path journal) {
    return new SequenceFiles(directory(journal), SUFFIX);
  }

  /** Takes archived record lines, each with the segment file it was read from. */
  @FunctionalInterface
  public interface LineSink {
    /** Takes one line (without its newline). */
    void accept(byte[] line, Path segment) throws JournalException;
  }

  /**
   * Streams the archived records from {@code from} up to (not including) {@code liveStart}, the
   * live file's first record, checking the chain, and returns the position after the last one.
   *
   * @throws JournalException {@code ARCHIVED} if the segments holding them are not all present,
   *     {@code CORRUPT} or {@code POSITION_MISMATCH} as {@link Journal#read}
   */
  public static JournalPosition read(
      Path journal,
      JournalPosition from,
      long liveStart,
      Map<ContentId, GrantChain> chains,
      Journal.RecordSink sink)
      throws JournalException {
    ChainedReader reader = new ChainedReader(from, chains);
    lines(journal, from.count(), liveStart, (line, file) -> sink.accept(reader.take(line, file)));
    return reader.position();
  }

  /**
   * Streams the lines of the archived records {@code from} up to (not including) {@code liveStart},
   * in order and unchecked, to {@code sink}. A segment a crash left before the archive's cut (a
   * pending one, or in a folder an older version archived, a final one) is named for the live
   * file's first record, so is not read; a pending one left after the cut is read as the segment it
   * is about to be named (an opening under the lock names it first; {@code mesh journal verify}
   * does not lock).
   *
   * <p>An archive forces each segment whole before it cuts the live file, and names the next
   * segment (or leaves the live file starting) where the last one ends, so a segment that ends
   * before its successor begins, or in a part line, was damaged after it was written (or a segment
   * between them was removed). That is {@code CORRUPT}, naming the file, not {@code ARCHIVED}: a
   * starting steward skips the check of archived records only when their segments are absent, and
   * must not skip it for a segment that is there but cut.
   *
   * @throws JournalException {@code ARCHIVED} if no segment holds record {@code from}, {@code
   *     CORRUPT} for a segment cut short, one holding lines past its end, one not named for its
   *     first record, a line longer than any record or an empty line, {@code IO}, or what {@code
   *     sink} throws
   */
  public static void lines(Path journal, long from, long liveStart, LineSink sink)
      throws JournalException {
    lines(journal, from, liveStart, liveStart, sink);
  }

  /**
   * As {@link #lines(Path, long, long, LineSink)}, stopping before record {@code to} (at most
   * {@code liveStart}): a segment is held to end where the next one, or the live file, begins only
   * where it was read to that end.
   *
   * <p>A segment holding lines past that end (records the next segment or the live file holds as
   * well) is {@code CORRUPT}, naming it: an archive copies exactly the records it cuts from the
   * live file, so such lines were added afterwards, and being never read, an edit in them would
   * pass unseen. So is a segment whose first line is not the record its name gives: named for a
   * later record than it holds, it was read as if it held that one.
   */
  public static void lines(Path journal, long from, long to, long liveStart, LineSink sink)
      throws JournalException {
    List<Segment> segments = list(journal);
    long seq = from;
    int i = segments.size() - 1;
    while (i >= 0 && segments.get(i).firstSeq() > seq) {
      i--;
    }
    if (i < 0) {
      if (!segments.isEmpty()) {
        // Absent only if the first one there is the segment its name says: one renamed is damage.
        checkNamed(segments.getFirst());
        if (segments.getFirst().firstSeq() < liveStart) {
          throw firstMissing(journal, seq, segments.getFirst());
        }
      }
      throw archived(journal, seq, liveStart);
    }
    for (; i < segments.size() && seq < to; i++) {
      Segment s = segments.get(i);
      // Where the records of this segment must reach: the next segment's first, or the live file's.
      long next = i + 1 < segments.size() ? segments.get(i + 1).firstSeq() : liveStart;
      checkNamed(s);
      try (HeldJournals.ReadChannel read = HeldJournals.openToRead(s.file())) {
        FileChannel ch = read.channel();
        long size = ch.size();
        LineReader lines = new LineReader(ch, 0, size);
        long held = s.firstSeq();
        for (; held < seq; held++) {
          long at = lines.offset();
          if (!lines.skip()) {
            checkNextNamed(segments, i);
            throw cutShort(s, held, Math.min(next, liveStart), lines.offset(), size);
          }
          if (lines.offset() == at + 1) {
            throw EmptyLine.refused(s.file(), at, held - 1);
          }
        }
        byte[] line;
        long end = Math.min(next, liveStart);
        while (seq < Math.min(end, to) && (line = lines.next()) != null) {
          if (line.length == 0) {
            throw EmptyLine.refused(s.file(), lines.offset() - 1, seq - 1);
          }
          sink.accept(line, s.file());
          seq++;
        }
        if (seq < Math.min(end, to)) {
          checkNextNamed(segments, i);
          throw cutShort(s, seq, end, lines.offset(), size);
        }
        if (seq == end && lines.offset() < size) {
          checkNextNamed(segments, i);
          throw overlapping(s, end, size - lines.offset(), i + 1 < segments.size());
        }
      } catch (LineReader.TooLong e) {
        throw new JournalException(
            JournalException.Reason.CORRUPT, seq, "in " + s.file() + ", " + FailureWords.of(e), e);
      } catch (IOException e) {
        throw readRefused(s.file(), e);
      }
    }
  }

  /**
   * Before segment {@code i} is blamed for ending short of, or running past, where the next one
   * begins: refuses the next one if it is misnamed ({@link #refuseIfMisnamed}). Renamed (to a later
   * record, or an earlier one), its name is what is wrong, and segment {@code i} is whole; blamed
   * instead, the operator would restore the one segment that is sound.
   */
  private static void checkNextNamed(List<Segment> segments, int i) throws JournalException {
    if (i + 1 < segments.size()) {
      refuseIfMisnamed(segments.get(i + 1));
    }
  }

  /**
   * Refuses segment {@code s} {@code CORRUPT}, naming it, when its first line is a record other
   * than the one its name gives; does nothing when it is that record, or when its first line cannot
   * be read as one (an archive killed as it began the segment leaves it so), for then it says
   * nothing of the name. For a caller about to blame something else (the segment before it, or the
   * live file) for a gap or an overlap the name alone would explain.
   */
  public static void refuseIfMisnamed(Segment s) throws JournalException {
    long first;
    try {
      first = firstRecord(s);
    } catch (JournalException unreadable) {
      return;
    }
    if (first >= 0 && first != s.firstSeq()) {
      throw misnamed(s, first);
    }
  }

  /**
   * The refusal for segment {@code s}, whose whole lines end before record {@code held} although
   * its records must reach record {@code next - 1}; {@code wholeEnd} is where its whole lines end
   * and {@code size} its length, so a part line after them is named too.
   */
  private static JournalException cutShort(
      Segment s, long held, long next, long wholeEnd, long size) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        held,
        "archived segment "
            + s.file()
            + (held == s.firstSeq()
                ? " holds no whole record"
                : " holds records " + s.firstSeq() + " to " + (held - 1))
            + (size > wholeEnd ? " and a part line of " + (size - wholeEnd) + " bytes" : "")
            + ", but records up to "
            + (next - 1)
            + " must follow in it (the segment was cut, or one after it removed); "
            + RESTORE,
        null);
  }

  /**
   * The refusal of a read from record {@code from} when the segments there begin only at {@code
   * first}, a later record: the journal's first segments were removed while later ones were kept.
   * Named as such, not as every record up to the live file being absent, which the segments there
   * belie; and the segment to put back is the one holding record {@code from}.
   */
  private static JournalException firstMissing(Path journal, long from, Segment first) {
    return new JournalException(
        JournalException.Reason.ARCHIVED,
        recordsArchived(journal, from, first.firstSeq())
            + ", and the segment holding them is missing from "
            + directory(journal)
            + ": the first segment there, "
            + first.file().getFileName()
            + ", begins at record "
            + first.firstSeq()
            + "; put back the segments holding records "
            + from
            + " to "
            + (first.firstSeq() - 1)
            + (from == 0 ? " (the first is named " + file(journal, 0).getFileName() + ")" : "")
            + ", or the snapshot that covered them",
        null);
  }

  /**
   * The refusal for segment {@code s}, whose records must end before record {@code end}, where the
   * next segment (or, when {@code toSegment} is false, the live file) begins, but which holds
   * {@code bytes} more after them.
   */
  private static JournalException overlapping(Segment s, long end, long bytes, boolean toSegment) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        end - 1,
        "archived segment "
            + s.file()
            + " holds "
            + bytes
            + " bytes after record "
            + (end - 1)
            + ", where "
            + (toSegment ? "the next segment" : "the live file")
            + " begins: an archive copies exactly the records it cuts, so they were added after it"
            + " (records copied in, or segments joined); "
            + RESTORE,
        null);
  }

  private static JournalException archived(Path journal, long from, long to) {
    return new JournalException(
        JournalException.Reason.ARCHIVED,
        recordsArchived(journal, from, to)
            + ", and the segments holding them are not in "
            + directory(journal),
        null);
  }

  /** "records {@code from} to {@code to - 1} of journal {@code journal} were archived". */
  private static String recordsArchived(Path journal, long from, long to) {
    return "records " + from + " to " + (to - 1) + " of journal " + journal + " were archived";
  }
}
