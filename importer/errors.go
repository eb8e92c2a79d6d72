package importer

import "errors"

func asErr(err error, target **Error) bool { return errors.As(err, target) }
