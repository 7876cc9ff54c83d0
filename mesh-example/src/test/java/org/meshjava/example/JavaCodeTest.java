package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JavaCodeTest {
  @Test
  void lineAndBlockComments_areBlanked_andTheCodeAroundThemKept() {
    String code =
        JavaCode.withoutComments("int a; // renamed from b\n/** old name c */ void d() {}\n");
    assertThat(code).contains("int a;", "void d() {}").doesNotContain("renamed", "b\n", " c ");
  }

  @Test
  void commentMarkersInsideLiterals_areNotComments() {
    String source =
        "String u = \"http://x/*y\"; char q = '\\''; String t = \"\"\"\n  // kept\n\"\"\";"
            + " char s = '/'; /* gone */ int z;";
    String code = JavaCode.withoutComments(source);
    assertThat(code)
        .contains("\"http://x/*y\"", "'\\''", "// kept", "'/'", "int z;")
        .doesNotContain("gone");
  }

  @Test
  void aTextBlock_endsAtTheFirstDelimiterNoBackslashEscapes() {
    String source =
        "String t = \"\"\"\n  say \\\"\"\" // kept\n  \"\"\"; // gone\n"
            + "String q = \"\"\"\n  a quote\\\"\"\"\"; // gone too\nint z;";
    String code = JavaCode.withoutComments(source);
    assertThat(code).contains("say \\\"\"\" // kept", "int z;").doesNotContain("gone");
  }

  @Test
  void unicodeEscapes_areReadFirst_asTheCompilerReadsThem() {
    String source =
        "int a; \\u002F\\u002F gone\nint b; \\u002f* gone too *\\uu002f int c;"
            + " String s = \"\\\\u002F\\\\u002F kept\";";
    String code = JavaCode.withoutComments(source);
    assertThat(code)
        .contains("int a;", "int b;", "int c;", "\"\\\\u002F\\\\u002F kept\"")
        .doesNotContain("gone");
  }
}
