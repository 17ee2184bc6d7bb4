package dev.eventide.pipelines.build;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM pins every library module a user may depend on, at the version the build makes, and
 * nothing else: a module added to the build without its line in bom/pom.xml, or a version changed
 * in one place only, fails here. Run from the last module of the build, it reads every module's
 * pom.
 */
class BomTest {
  private static final Path ROOT = Paths.get("..");

  /** Modules that are applications or build helpers, not libraries a user depends on. */
  private static final Set<String> NOT_LIBRARIES =
      Set.of("eventide-pipelines", "eventide-flink-cluster", "eventide-bom");

  @Test
  void pinsEveryLibraryModuleAtTheBuildsVersion() throws Exception {
    Element parent = read(ROOT.resolve("pom.xml"));
    String version = text(parent, "version");
    TreeMap<String, String> expected = new TreeMap<>();
    for (Element module : children(only(parent, "modules"), "module")) {
      Element pom = read(ROOT.resolve(module.getTextContent().strip()).resolve("pom.xml"));
      String artifact = text(pom, "artifactId");
      if (!NOT_LIBRARIES.contains(artifact)) {
        expected.put(artifact, version);
      }
    }

    Element bom = read(ROOT.resolve("bom/pom.xml"));
    assertThat("the BOM's own version", text(bom, "version"), equalTo(version));
    assertThat("the BOM has no parent", children(bom, "parent").isEmpty(), equalTo(true));
    TreeMap<String, String> pinned = new TreeMap<>();
    Element managed = only(only(bom, "dependencyManagement"), "dependencies");
    for (Element dependency : children(managed, "dependency")) {
      assertThat(text(dependency, "groupId"), equalTo("dev.eventide"));
      pinned.put(text(dependency, "artifactId"), text(dependency, "version"));
    }
    assertThat(pinned, equalTo(expected));
  }

  private static Element read(Path pom) throws Exception {
    if (!Files.isRegularFile(pom)) {
      throw new AssertionError("no " + pom);
    }
    Document document =
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    return document.getDocumentElement();
  }

  /** The text of the element's one child of that name. */
  private static String text(Element element, String name) {
    return only(element, name).getTextContent().strip();
  }

  /** The element's one child of that name. */
  private static Element only(Element element, String name) {
    List<Element> found = children(element, name);
    if (found.size() != 1) {
      throw new AssertionError(found.size() + " <" + name + "> in <" + element.getTagName() + ">");
    }
    return found.get(0);
  }

  /** The element's direct children of that name. */
  private static List<Element> children(Element element, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = element.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node node = nodes.item(i);
      if (node instanceof Element e && e.getTagName().equals(name)) {
        found.add(e);
      }
    }
    return found;
  }
}
