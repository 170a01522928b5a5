// Part of the M5P golden generator (gen_m5p.sh): fits Weka's M5P on a CSV
// file and writes its tree, node models and predictions with every digit.
// Compiled into a temporary directory by gen_m5p.sh against Debian's
// /usr/share/java/weka.jar (Weka 3.6.14); the class file is not committed.
//
// usage: java M5PGolden train.csv test.csv out.txt [M5P options]
// CSV: a header, numeric columns, the target last. Parsed with
// Double.parseDouble (correctly rounded, as Go's strconv.ParseFloat).
//
// Output lines:
//   # comment (Weka version, options)
//   data <train.csv>
//   grid <test.csv>
//   options <M5P options>
//   leaves <number of leaves (rules)>
//   node <depth> <attr> <split value> <n> <intercept> <coef_0> ... <coef_{p-1}>
//   leaf <depth> <n> <intercept> <coef_0> ... <coef_{p-1}>
//     (pre-order; a split sends x[attr] <= value left; the models are the
//     ones M5P predicts with: after smoothing, the leaves hold the smoothed
//     models and the inner nodes their own)
//   pred <prediction at test row i>
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import weka.classifiers.trees.M5P;
import weka.classifiers.trees.m5.PreConstructedLinearModel;
import weka.classifiers.trees.m5.RuleNode;
import weka.core.Attribute;
import weka.core.FastVector;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.Version;

public class M5PGolden {
  static Instances load(String path) throws Exception {
    BufferedReader r = new BufferedReader(new FileReader(path));
    String[] names = r.readLine().split(",");
    FastVector atts = new FastVector();
    for (String nm : names) {
      atts.addElement(new Attribute(nm));
    }
    Instances d = new Instances(path, atts, 0);
    for (String line; (line = r.readLine()) != null;) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(",");
      double[] v = new double[f.length];
      for (int j = 0; j < f.length; j++) {
        v[j] = Double.parseDouble(f[j]);
      }
      d.add(new Instance(1.0, v));
    }
    r.close();
    d.setClassIndex(d.numAttributes() - 1);
    return d;
  }

  static String model(PreConstructedLinearModel m, int p) {
    StringBuilder s = new StringBuilder(Double.toString(m.intercept()));
    double[] c = m.coefficients();
    for (int j = 0; j < p; j++) {
      s.append(' ').append(Double.toString(c[j]));
    }
    return s.toString();
  }

  static void dump(PrintWriter w, RuleNode nd, int depth, int p) {
    if (nd.isLeaf()) {
      w.println("leaf " + depth + " " + nd.getNumInstances() + " " + model(nd.getModel(), p));
      return;
    }
    w.println("node " + depth + " " + nd.splitAtt() + " " + Double.toString(nd.splitVal()) + " "
        + nd.getNumInstances() + " " + model(nd.getModel(), p));
    dump(w, nd.leftNode(), depth + 1, p);
    dump(w, nd.rightNode(), depth + 1, p);
  }

  public static void main(String[] a) throws Exception {
    Instances train = load(a[0]);
    Instances test = load(a[1]);
    String[] opts = Arrays.copyOfRange(a, 3, a.length);
    M5P m5p = new M5P();
    m5p.setOptions(opts.clone());
    m5p.buildClassifier(train);
    int p = train.numAttributes() - 1;
    PrintWriter w = new PrintWriter(a[2]);
    w.println("# Weka " + Version.VERSION + " weka.classifiers.trees.M5P " + String.join(" ", opts)
        + "; written by gen_m5p.sh");
    w.println("data " + a[0]);
    w.println("grid " + a[1]);
    w.println("options " + String.join(" ", opts));
    w.println("leaves " + (int) m5p.measureNumRules());
    dump(w, m5p.getM5RootNode(), 0, p);
    for (int i = 0; i < test.numInstances(); i++) {
      w.println("pred " + Double.toString(m5p.classifyInstance(test.instance(i))));
    }
    w.close();
  }
}
