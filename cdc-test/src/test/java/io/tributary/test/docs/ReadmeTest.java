package io.tributary.test.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README honest where that is cheap: short enough to read, its links (and those of the other
 * Markdown documents) leading somewhere, and its test command the one CI runs.
 */
class ReadmeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final int MAX_README_LINES = 160;
    /** {@code [text](target)}; the target has no spaces (Markdown would not take it as a link then). */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void readmeFitsOnAFewScreens() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(lines.size())
                .as("README.md has %d lines; move details to CHANGELOG.md or docs/ (at most %d)", lines.size(),
                        MAX_README_LINES)
                .isLessThanOrEqualTo(MAX_README_LINES);
    }

    @Test
    void readmeTestCommandIsTheOneCiRuns() throws IOException {
        String ciCommand = null;
        for (String line : Files.readAllLines(ROOT.resolve(".ci/run"))) {
            if (line.startsWith("exec ")) {
                ciCommand = line.substring("exec ".length()).trim();
            }
        }
        assertThat(ciCommand).as(".ci/run ends by exec-ing the test command").isNotNull();
        assertThat(codeLines(ROOT.resolve("README.md")))
                .as("a command line in README.md's code blocks equal to what .ci/run execs")
                .contains(ciCommand);
    }

    @Test
    void readmeQuickstartProfileExists() throws IOException {
        List<String> quickstart = codeLines(ROOT.resolve("README.md")).stream()
                .filter(l -> l.contains("-Pquickstart")).toList();
        assertThat(quickstart).as("README.md shows the quickstart command").isNotEmpty();
        assertThat(Files.readString(ROOT.resolve("cdc-test/pom.xml"))).as("cdc-test/pom.xml declares the profile")
                .contains("<id>quickstart</id>");
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md"),
                ROOT.resolve("deploy/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path doc : documents) {
            if (!Files.exists(doc)) {
                broken.add(ROOT.relativize(doc) + ": missing");
                continue;
            }
            for (String target : links(doc)) {
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // http:, https:, mailto: ... not checked here
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(ROOT.relativize(doc) + ": " + target + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(anchor)) {
                    broken.add(ROOT.relativize(doc) + ": " + target + " (no such heading in " + ROOT.relativize(resolved)
                            + ")");
                }
            }
        }
        assertThat(checked).as("relative links found").isGreaterThan(10);
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    /** The lines inside fenced code blocks, trimmed, each cut before a {@code  #} comment. */
    private static List<String> codeLines(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(file)) {
            if (line.trim().startsWith("```")) {
                inCode = !inCode;
            } else if (inCode) {
                int comment = line.indexOf(" #");
                out.add((comment < 0 ? line : line.substring(0, comment)).trim());
            }
        }
        return out;
    }

    /** The link targets of a Markdown file, outside fenced code blocks and inline code. */
    private static List<String> links(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(file)) {
            if (line.trim().startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`(?!\\])", "``"));
            while (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** GitHub's anchors of a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
    static Set<String> anchors(Path file) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(file)) {
            if (line.trim().startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (inCode || !m.matches()) {
                continue;
            }
            String text = m.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
            String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return out;
    }
}
