package org.meshjava.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The {@code --help} text of every command, laid out as picocli does but wrapped only at spaces.
 * picocli wraps at the line breaks of {@link java.text.BreakIterator#getLineInstance()}, which
 * falls after a {@code .}, {@code :} or {@code /} inside a word, so a path, a file name or a URL at
 * the end of a line was split in two ({@code FILE.} / {@code snapshots}), and a reader copying it
 * copied half. A word longer than a whole line is still broken, as picocli breaks it.
 */
final class HelpText implements CommandLine.IHelpFactory {
  @Override
  public Help create(CommandSpec spec, Help.ColorScheme colors) {
    return new Help(spec, colors) {
      @Override
      public Help.Layout createDefaultLayout(
          List<OptionSpec> options, List<PositionalParamSpec> params, Help.ColorScheme scheme) {
        TextTable picocli = super.createDefaultLayout(options, params, scheme).textTable();
        return new Help.Layout(scheme, SpaceWrapped.like(picocli, scheme));
      }

      @Override
      public TextTable createTextTable(Map<?, ?> map) {
        return SpaceWrapped.like(super.createTextTable(map), colorScheme());
      }

      @Override
      public String description(Object... params) {
        return wrapped(commandSpec().usageMessage().description(), params);
      }

      @Override
      public String header(Object... params) {
        return wrapped(commandSpec().usageMessage().header(), params);
      }

      @Override
      public String footer(Object... params) {
        return wrapped(commandSpec().usageMessage().footer(), params);
      }

      /** The lines of a section, each wrapped to the usage width, as picocli's own join does. */
      private String wrapped(String[] lines, Object... params) {
        if (lines.length == 0) {
          return "";
        }
        TextTable table =
            new SpaceWrapped(
                colorScheme(),
                new Column[] {
                  new Column(commandSpec().usageMessage().width(), 0, Column.Overflow.WRAP)
                });
        table.indentWrappedLines = 0;
        for (String line : lines) {
          for (Text one : colorScheme().text(String.format(line, params)).splitLines()) {
            table.addRowValues(one);
          }
        }
        return table.toString();
      }
    };
  }

  /** A picocli table whose wrapping columns break lines at spaces only. */
  private static final class SpaceWrapped extends TextTable {
    private final Help.ColorScheme colors;

    SpaceWrapped(Help.ColorScheme colors, Column[] columns) {
      super(colors, columns);
      this.colors = colors;
    }

    /** A table with the columns and wrapped-line indent of {@code picocli}'s. */
    static SpaceWrapped like(TextTable picocli, Help.ColorScheme colors) {
      SpaceWrapped table = new SpaceWrapped(colors, picocli.columns());
      table.indentWrappedLines = picocli.indentWrappedLines;
      table.setAdjustLineBreaksForWideCJKCharacters(
          picocli.isAdjustLineBreaksForWideCJKCharacters());
      return table;
    }

    @Override
    public Cell putValue(int row, int col, Text value) {
      Column column = columns()[col];
      if (column.overflow != Column.Overflow.WRAP || value == null) {
        return super.putValue(row, col, value);
      }
      // Each piece written fits its line, so picocli writes it whole; only a word longer than a
      // line is left to picocli's own breaking.
      String plain = value.plainString();
      Cell at = new Cell(col, row);
      int start = 0;
      boolean first = true;
      while (start < plain.length()) {
        int indent = first ? 0 : indentWrappedLines;
        int end = lineEnd(plain, start, column.width - column.indent - indent);
        Text piece = value.substring(start, end);
        if (!first) {
          addEmptyRow();
          row = at.row + 1;
          piece = colors.text(" ".repeat(indent)).concat(piece);
        }
        at = super.putValue(row, col, piece);
        first = false;
        start = end;
        while (start < plain.length() && plain.charAt(start) == ' ') {
          start++;
        }
      }
      return at;
    }

    /**
     * Where the line that starts at {@code start} ends: the whole rest if it fits in {@code room},
     * else before the last space that lets it fit, else (a word longer than the line) after that
     * word.
     */
    private static int lineEnd(String text, int start, int room) {
      if (text.length() - start <= room) {
        return text.length();
      }
      int space = text.lastIndexOf(' ', start + room);
      while (space > start && text.charAt(space - 1) == ' ') {
        space--;
      }
      if (space > start) {
        return space;
      }
      int next = text.indexOf(' ', start);
      return next < 0 ? text.length() : next;
    }
  }
}
