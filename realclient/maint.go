package realclient

import (
	"reflect"
)

// disableMaintNotifications turns go-redis's maintenance notifications
// off where the linked go-redis has them (Options.MaintNotificationsConfig,
// v9.16 on): their default auto mode resolves the address with a real DNS
// lookup, outside the simulation. The field is set by reflection, so that
// the harness does not import go-redis/v9/maintnotifications: it builds
// against every go-redis v9, with or without the field.
// Protocol 2 does not do it (the endpoint type is still detected). A user's
// own setting (WithRedisOptions runs after) is kept. TestMaintNotificationsOff
// (realclient/libs, at a go-redis that has the field) checks the result.
// opt is a *redis.Options or a *redis.ClusterOptions.
func disableMaintNotifications(opt any) {
	f := reflect.ValueOf(opt).Elem().FieldByName("MaintNotificationsConfig")
	if !f.IsValid() || f.Kind() != reflect.Pointer || !f.IsNil() || f.Type().Elem().Kind() != reflect.Struct {
		return
	}
	cfg := reflect.New(f.Type().Elem())
	mode := cfg.Elem().FieldByName("Mode")
	if !mode.IsValid() || mode.Kind() != reflect.String {
		return
	}
	mode.SetString("disabled")
	// Up to v9.22 the endpoint type is detected (a DNS lookup) whatever
	// the mode, unless it is given: "none" (reconnect with the current
	// configuration), valid in every version that has the field.
	if et := cfg.Elem().FieldByName("EndpointType"); et.IsValid() && et.Kind() == reflect.String {
		et.SetString("none")
	}
	f.Set(cfg)
}
