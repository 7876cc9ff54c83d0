package org.meshjava.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The {@code --help} text of every command, laid out as picocli does but wrapped only at spaces.
 * picocli wraps at the line breaks of {@link java.text.BreakIterator#getLineInstance()}, which
 * falls after a {@code .}, {@code :} or {@code /} inside a word, so a path, a file name or a URL at
 * the end of a line was split in two ({@code FILE.} / {@code snapshots}), and a reader copying it
 * copied half. A word longer than a whole line is still broken, as picocli breaks it.
 *
 * <p>Only picocli's public API is used: each row is split at spaces into lines that fit their
 * columns before picocli's table is given it, so picocli writes every piece whole and never wraps
 * one itself.
 */
final class HelpText implements CommandLine.IHelpFactory {
  @Override
  public Help create(CommandSpec spec, Help.ColorScheme colors) {
    return new Help(spec, colors) {
      @Override
      public Help.Layout createDefaultLayout(
          List<OptionSpec> options, List<PositionalParamSpec> params, Help.ColorScheme scheme) {
        TextTable picocli = super.createDefaultLayout(options, params, scheme).textTable();
        return new Help.Layout(scheme, emptyLike(picocli, scheme)) {
          @Override
          public void layout(ArgSpec argSpec, Text[][] cellValues) {
            List<Text[]> rows = new ArrayList<>();
            for (Text[] row : cellValues) {
              rows.addAll(spaceWrapped(textTable(), row, scheme));
            }
            super.layout(argSpec, rows.toArray(Text[][]::new));
          }
        };
      }

      @Override
      public TextTable createTextTable(Map<?, ?> map) {
        TextTable picocli = super.createTextTable(map);
        if (map == null || map.isEmpty()) {
          return picocli;
        }
        TextTable table = emptyLike(picocli, colorScheme());
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          Text[] row = {
            colorScheme().text(String.valueOf(entry.getKey())),
            colorScheme().text(String.valueOf(entry.getValue()))
          };
          spaceWrapped(table, row, colorScheme()).forEach(table::addRowValues);
        }
        return table;
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
            TextTable.forColumns(
                colorScheme(),
                new Column(commandSpec().usageMessage().width(), 0, Column.Overflow.WRAP));
        table.indentWrappedLines = 0;
        for (String line : lines) {
          for (Text one : colorScheme().text(String.format(line, params)).splitLines()) {
            spaceWrapped(table, new Text[] {one}, colorScheme()).forEach(table::addRowValues);
          }
        }
        return table.toString();
      }
    };
  }

  /** An empty table with the columns, wrapped-line indent and CJK setting of {@code picocli}'s. */
  private static TextTable emptyLike(TextTable picocli, Help.ColorScheme colors) {
    TextTable table = TextTable.forColumns(colors, picocli.columns());
    table.indentWrappedLines = picocli.indentWrappedLines;
    table.setAdjustLineBreaksForWideCJKCharacters(picocli.isAdjustLineBreaksForWideCJKCharacters());
    return table;
  }

  /**
   * {@code row} as the rows of {@code table} it takes: each wrapping cell split at spaces into
   * lines that fit its column, the first beside the row's other cells, the rest below them indented
   * by the table's wrapped-line indent. Only a word longer than a line is left to picocli.
   */
  private static List<Text[]> spaceWrapped(TextTable table, Text[] row, Help.ColorScheme colors) {
    Column[] columns = table.columns();
    Text empty = colors.text("");
    List<Text[]> rows = new ArrayList<>();
    rows.add(row.clone());
    for (int col = 0; col < row.length; col++) {
      Column column = columns[col];
      Text value = row[col];
      if (column.overflow != Column.Overflow.WRAP || value == null) {
        continue;
      }
      String plain = value.plainString();
      int start = 0;
      int line = 0;
      while (start < plain.length()) {
        int indent = line == 0 ? 0 : table.indentWrappedLines;
        int end = lineEnd(plain, start, column.width - column.indent - indent);
        Text piece = value.substring(start, end);
        if (line > 0) {
          piece = colors.text(" ".repeat(indent)).concat(piece);
        }
        if (line == rows.size()) {
          Text[] below = new Text[row.length];
          java.util.Arrays.fill(below, empty);
          rows.add(below);
        }
        rows.get(line)[col] = piece;
        line++;
        start = end;
        while (start < plain.length() && plain.charAt(start) == ' ') {
          start++;
        }
      }
    }
    return rows;
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
