package ir

// This file declares the facts of the ai.onnx.ml ops, the training ops and the ai.onnx text ops
// (see ops.go for what each field means).

func mlOps() []OpInfo {
	return rows(
		like(mlDomain, OpInfo{In: ar(1, 1), Out: ar(1, 1)},
			"Cast", "CategoryMapper", "DictVectorizer", "Imputer", "LabelEncoder", "LinearRegressor", "Normalizer",
			"OneHotEncoder", "SVMRegressor", "Scaler", "TreeEnsemble", "TreeEnsembleRegressor", "ZipMap"),
		like(mlDomain, OpInfo{In: ar(1, 1), Out: ar(2, 2)},
			"LinearClassifier", "SVMClassifier", "TreeEnsembleClassifier"),
		like(trainingDomain, OpInfo{In: ar(3, -1), Out: ar(1, -1), Cost: CostElementwise},
			"Adagrad", "Adam", "Momentum"),
		[]OpInfo{
			{Key: op("RegexFullMatch"), In: ar(1, 1), Out: ar(1, 1), Types: stringX},
			{Key: op("StringConcat"), In: ar(2, 2), Out: ar(1, 1), Types: stringOps},
			{Key: op("StringNormalizer"), In: ar(1, 1), Out: ar(1, 1), Types: stringX},
			{Key: op("StringSplit"), In: ar(1, 1), Out: ar(2, 2), Types: stringX},
			{Key: op("TfIdfVectorizer"), In: ar(1, 1), Out: ar(1, 1)},
			{Key: opIn(mlDomain, "ArrayFeatureExtractor"), In: ar(2, 2), Out: ar(1, 1)},
			{Key: opIn(mlDomain, "Binarizer"), In: ar(1, 1), Out: ar(1, 1), Cost: CostElementwise},
			{Key: opIn(mlDomain, "FeatureVectorizer"), In: ar(1, -1), Out: ar(1, 1)},
			{Key: opIn(trainingDomain, "Gradient"), In: ar(0, -1), Out: ar(1, -1)},
		},
	)
}
