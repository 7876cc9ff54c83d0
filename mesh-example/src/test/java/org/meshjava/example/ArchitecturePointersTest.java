package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md names, for each MUST, the class that enforces it and the tests that guard it. A
 * class renamed, moved or removed leaves that line pointing at nothing, and nothing else notices.
 * So every pointer the file writes is resolved against the source tree: a qualified class ({@code
 * steward.Sealer}, {@code journal.internal.ReplayState}, {@code journal.JournalEntry.Suspended…})
 * must be a file under some module's {@code src/main/java/org/meshjava}, each name after the class
 * (a nested type or a member) must occur in it, a method named in parentheses after it ({@code
 * jcp.Gate} ({@code decide})) too, and a test class ({@code FooTest}, {@code FooTest.someCase},
 * {@code FooTest} ({@code someCase}, {@code otherCase})) must exist under some module's {@code
 * src/test/java}, declaring each case named (a case shortened with an ellipsis matches any case it
 * abbreviates). A class written without its package ({@code Sealer}, {@code Ask.Generation}, {@code
 * Steward.spend()}) must be a class or a nested type of that name in some module's main or test
 * source, with each name after it occurring in one of them; a member written alone with parentheses
 * ({@code storage()}) must be called or declared in some main source. A name counts only where it
 * occurs in code: a comment still naming a member that was renamed does not keep a pointer to it
 * alive.
 */
class ArchitecturePointersTest {
  private static final Path ROOT = Path.of("..");

  /**
   * A name in backticks: no spaces, but an argument list in parentheses may hold some ({@code
   * Gate.decide(presentation, at)}).
   */
  private static final Pattern TICKED = Pattern.compile("`([^`\\s(]+(?:\\([^`)]*\\))?)`");

  /** A qualified class, then nested types or members: {@code pkg.sub.Class.Nested.member}. */
  private static final Pattern CLASS_POINTER =
      Pattern.compile("((?:[a-z][a-z0-9]*\\.)+)([A-Z]\\w*)((?:\\.\\w+)*)(?:\\([^)]*\\))?");

  /**
   * A class without its package, then nested types or members: {@code Steward.serve}, {@code
   * Ask.Generation}, {@code ServingEngine.domains()}. The second letter is lower case, so a
   * constant ({@code MISPLACED}, {@code IO}) is not read as a class; a name ending in {@code Test}
   * or {@code Tests} is a test pointer, checked as such.
   */
  private static final Pattern SIMPLE_CLASS_POINTER =
      Pattern.compile("([A-Z][a-z0-9]\\w*(?<!Test|Tests))((?:\\.\\w+)*)(?:\\([^)]*\\))?");

  /** A member written alone with its parentheses: {@code storage()}. */
  private static final Pattern BARE_MEMBER = Pattern.compile("([a-z]\\w*)\\([^)]*\\)");

  /**
   * A test class, with one of its cases: {@code FooTest}, {@code FooTest.someCase}, or a case
   * shortened with an ellipsis ({@code FooTest.someCase_…}).
   */
  private static final Pattern TEST_POINTER = Pattern.compile("([A-Z]\\w*Tests?)(?:\\.([\\w…]+))?");

  /** A test class followed by its cases in parentheses: {@code `FooTest` (`someCase`, …)}. */
  private static final Pattern TEST_WITH_CASES =
      Pattern.compile("`([A-Z]\\w*Tests?)` \\(([^)]*)\\)");

  /** A case name, whole or shortened with an ellipsis at either end or both. */
  private static final Pattern CASE = Pattern.compile("`([a-z…][\\w…]*)`");

  /** A qualified class followed by members in parentheses: {@code `jcp.Gate` (`decide`)}. */
  private static final Pattern CLASS_WITH_MEMBERS =
      Pattern.compile("`((?:[a-z][a-z0-9]*\\.)+[A-Z]\\w*)` \\(([^)]*)\\)");

  private static final Pattern MEMBER = Pattern.compile("`([a-z]\\w*)`");

  private static String architecture;

  /**
   * Main source by its path under {@code org/meshjava}, without {@code .java}: {@code jcp/Gate}.
   */
  private static Map<String, String> mainSources;

  /** Test source by its class's simple name; all of them where two modules share a name. */
  private static Map<String, List<String>> testSources;

  /** Main source by its class's simple name; all of them where two packages share a name. */
  private static Map<String, List<String>> mainBySimpleName;

  @BeforeAll
  static void readTheTree() throws IOException {
    architecture = Files.readString(ROOT.resolve("ARCHITECTURE.md"));
    mainSources = new HashMap<>();
    testSources = new HashMap<>();
    mainBySimpleName = new HashMap<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.filter(Files::isDirectory).toList()) {
        Path main = module.resolve("src/main/java/org/meshjava");
        for (Path f : javaFiles(main)) {
          String rel = main.relativize(f).toString().replace('\\', '/');
          String path = rel.substring(0, rel.length() - ".java".length());
          String code = JavaCode.withoutComments(read(f));
          mainSources.put(path, code);
          mainBySimpleName
              .computeIfAbsent(path.substring(path.lastIndexOf('/') + 1), k -> new ArrayList<>())
              .add(code);
        }
        for (Path f : javaFiles(module.resolve("src/test/java"))) {
          String name = f.getFileName().toString();
          testSources
              .computeIfAbsent(
                  name.substring(0, name.length() - ".java".length()), k -> new ArrayList<>())
              .add(JavaCode.withoutComments(read(f)));
        }
      }
    }
  }

  private static List<Path> javaFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.toString().endsWith(".java")).toList();
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether {@code name} occurs in {@code source} as a whole word. The plain search first spares
   * the pattern most sources, which keeps the test fast from a cold JVM.
   */
  private static boolean mentions(String source, String name) {
    return source.contains(name)
        && Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(source).find();
  }

  /**
   * What {@code check} finds wrong with each name in backticks that {@code pointer} matches whole,
   * {@code check} adding one line per fault to the list it is given; asserts more than {@code
   * atLeast} were read ({@code read} says what), so a pattern that stops matching the file does not
   * pass by reading nothing.
   */
  private static List<String> brokenPointers(
      Pattern pointer, String read, int atLeast, BiConsumer<Matcher, List<String>> check) {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    Matcher ticked = TICKED.matcher(architecture);
    while (ticked.find()) {
      Matcher m = pointer.matcher(ticked.group(1));
      if (m.matches()) {
        checked++;
        check.accept(m, broken);
      }
    }
    assertThat(checked).as(read).isGreaterThan(atLeast);
    return broken;
  }

  /**
   * Adds to {@code broken} a line for each name in {@code after} ({@code .Nested.member}, each part
   * after a class) that occurs in none of {@code sources}, the class's code; {@code in} names the
   * class in that line.
   */
  private static void namesAfter(
      String pointer, String after, List<String> sources, String in, List<String> broken) {
    for (String name : after.split("\\.")) {
      if (!name.isEmpty() && sources.stream().noneMatch(c -> mentions(c, name))) {
        broken.add(pointer + ": " + name + " does not occur in " + in);
      }
    }
  }

  @Test
  void everyClassPointer_namesAClassThatExists_andEachNameAfterItOccursInIt() {
    List<String> broken =
        brokenPointers(
            CLASS_POINTER,
            "class pointers read (the pattern still matches the file)",
            100,
            (m, out) -> {
              String path = m.group(1).replace('.', '/') + m.group(2);
              String source = mainSources.get(path);
              if (source == null) {
                out.add(m.group() + ": no class org/meshjava/" + path + ".java");
                return;
              }
              namesAfter(m.group(), m.group(3), List.of(source), path + ".java", out);
            });
    assertThat(broken).as("ARCHITECTURE.md's class pointers").isEmpty();
  }

  @Test
  void everyMemberInParentheses_afterAClass_occursInThatClass() {
    List<String> broken =
        namesInParentheses(
            CLASS_WITH_MEMBERS,
            MEMBER,
            "members in parentheses read",
            (owner, member) ->
                mentions(mainSources.getOrDefault(owner.replace('.', '/'), ""), member));
    assertThat(broken).as("members ARCHITECTURE.md names that their class lacks").isEmpty();
  }

  /**
   * Each name {@code name} finds in the parentheses after a pointer {@code owner} matches (group 1
   * the pointer, group 2 what the parentheses hold) that {@code holds} does not accept, as {@code
   * "pointer (name)"}; asserts more than 20 were read, so a pattern that stops matching the file
   * does not pass by reading nothing.
   */
  private static List<String> namesInParentheses(
      Pattern owner, Pattern name, String read, BiPredicate<String, String> holds) {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    Matcher m = owner.matcher(architecture);
    while (m.find()) {
      Matcher n = name.matcher(m.group(2));
      while (n.find()) {
        checked++;
        if (!holds.test(m.group(1), n.group(1))) {
          broken.add(m.group(1) + " (" + n.group(1) + ")");
        }
      }
    }
    assertThat(checked).as(read).isGreaterThan(20);
    return broken;
  }

  /**
   * Whether one of {@code sources} declares a method named {@code name} (a test case); an ellipsis
   * in the name stands for any part of it left out. A name met only in a comment or a call does not
   * count: a renamed case often leaves its old name in a javadoc.
   */
  private static boolean declaresCase(List<String> sources, String name) {
    StringBuilder re = new StringBuilder("\\bvoid\\s+");
    String[] parts = name.split("…");
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        re.append("\\w*");
      }
      re.append(Pattern.quote(parts[i]));
    }
    if (name.endsWith("…")) {
      re.append("\\w*");
    }
    Pattern declared = Pattern.compile(re.append("\\s*\\(").toString());
    return sources.stream().anyMatch(s -> declared.matcher(s).find());
  }

  @Test
  void everyTestPointer_namesATestThatExists_withTheCaseItNames() {
    List<String> broken =
        brokenPointers(
            TEST_POINTER,
            "test pointers read",
            100,
            (m, out) -> {
              List<String> sources = testSources.get(m.group(1));
              if (sources == null) {
                out.add(m.group() + ": no test class " + m.group(1));
              } else if (m.group(2) != null && !declaresCase(sources, m.group(2))) {
                out.add(m.group() + ": no case " + m.group(2) + " in " + m.group(1));
              }
            });
    assertThat(broken).as("ARCHITECTURE.md's test pointers").isEmpty();
  }

  @Test
  void everyCaseInParentheses_afterATestClass_isDeclaredInIt() {
    List<String> broken =
        namesInParentheses(
            TEST_WITH_CASES,
            CASE,
            "cases in parentheses read",
            (test, c) -> declaresCase(testSources.getOrDefault(test, List.of()), c));
    assertThat(broken).as("cases ARCHITECTURE.md names that their test class lacks").isEmpty();
  }

  /**
   * The sources a class written without its package may be: a main or test class of that simple
   * name, or a main source that declares a nested type of it; empty where none does.
   */
  private static List<String> sourcesOfSimpleName(String name) {
    List<String> found = new ArrayList<>(mainBySimpleName.getOrDefault(name, List.of()));
    found.addAll(testSources.getOrDefault(name, List.of()));
    if (found.isEmpty()) {
      Pattern declared =
          Pattern.compile("\\b(?:class|interface|record|enum)\\s+" + Pattern.quote(name) + "\\b");
      for (String source : mainSources.values()) {
        if (source.contains(name) && declared.matcher(source).find()) {
          found.add(source);
        }
      }
    }
    return found;
  }

  /** Whether {@code java.lang} has a class of that name ({@code Error}, {@code InternalError}). */
  private static boolean isJavaLang(String name) {
    try {
      Class.forName("java.lang." + name, false, ClassLoader.getPlatformClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  @Test
  void everyClassWrittenWithoutItsPackage_existsSomewhere_andEachNameAfterItOccursInIt() {
    List<String> broken =
        brokenPointers(
            SIMPLE_CLASS_POINTER,
            "classes without a package read (the pattern still matches the file)",
            100,
            (m, out) -> {
              List<String> sources = sourcesOfSimpleName(m.group(1));
              if (sources.isEmpty()) {
                if (!isJavaLang(m.group(1))) {
                  out.add(m.group() + ": no class or nested type " + m.group(1));
                }
                return;
              }
              namesAfter(m.group(), m.group(2), sources, m.group(1), out);
            });
    assertThat(broken).as("ARCHITECTURE.md's classes written without a package").isEmpty();
  }

  @Test
  void everyMemberWrittenAloneWithParentheses_isCalledOrDeclaredInMainCode() {
    List<String> broken =
        brokenPointers(
            BARE_MEMBER,
            "members written alone read",
            1,
            (m, out) -> {
              Pattern used = Pattern.compile("\\b" + Pattern.quote(m.group(1)) + "\\s*\\(");
              if (mainSources.values().stream()
                  .noneMatch(c -> c.contains(m.group(1)) && used.matcher(c).find())) {
                out.add(m.group() + ": " + m.group(1) + " is in no main source");
              }
            });
    assertThat(broken).as("ARCHITECTURE.md's members written alone").isEmpty();
  }
}
