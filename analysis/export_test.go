package analysis

// For the tests of package analysis_test, which may import the packages
// that import analysis (the companion's join, for its rules' cases).
var AnnotateNotes = annotateNotes
